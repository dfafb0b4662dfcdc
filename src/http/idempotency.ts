/**
 * `Idempotency-Key` on creates (draft-ietf-httpapi-idempotency-key-header): the first request with a key is
 * processed; a repeat by the same caller with the same body within 24 hours answers the stored status and body with
 * `Idempotent-Replayed: true` and writes nothing; the same key with another body is 422; a repeat while the first
 * still runs is 409. Keys live in the database (`idempotency_keys`), so every node and every restart sees them.
 *
 * How: the key is claimed (a row without an answer) in a short transaction before the create runs; the create's
 * answer is stored on the claim before it is sent. Only successful creates are remembered: a refused one releases its
 * claim, so the caller may correct the body and retry with the same key. A claim whose node died mid-request is taken
 * over once it is older than twice the request timeout. Cost: one header read for creates without a key.
 */
import { createHash } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Db } from '../db/knex';
import { isPostgres, transactionWithRetry, utcNow, utcTextToMs } from '../db/dialect';
import { now } from '../domain/clock';
import { caller } from './auth';
import { context } from './context';
import { ApiError, invalidParam } from './errors';

const RETENTION_MS = 24 * 3600 * 1000;
/** Visible ASCII, optionally as a structured-field string (`"…"`), as the draft defines the header. */
const KEY = /^"?([\x21\x23-\x7e]{1,255})"?$/;

interface Claim {
  fingerprint: string;
  status: number | null;
  body: string | null;
  location: string | null;
  created_utc: string;
}

type Outcome = { kind: 'claimed' } | { kind: 'replay'; status: number; body: string; location: string | null };

export const idempotentCreate: RequestHandler = async (req, res, next) => {
  const header = req.headers['idempotency-key'];
  if (header === undefined) return next();
  const key = typeof header === 'string' ? KEY.exec(header)?.[1] : undefined;
  if (!key) throw invalidParam('Idempotency-Key', 'idempotency_key_invalid');
  const userId = caller(req)?.id as number; // creates are authorised before this runs
  const { db, config } = context(req);
  const fingerprint = createHash('sha256').update(`${req.method} ${req.originalUrl}\n${canonical(req.body)}`).digest('hex');
  const outcome = await claim(db, userId, key, fingerprint, config.requestTimeoutMs * 2);
  if (outcome.kind === 'replay') {
    res.setHeader('Idempotent-Replayed', 'true');
    if (outcome.location) res.setHeader('Location', outcome.location);
    res.status(outcome.status).type('application/json').send(outcome.body);
    return;
  }
  const json = res.json.bind(res);
  res.json = (body?: unknown) => {
    const status = res.statusCode;
    const location = res.getHeader('Location');
    const settle = status >= 200 && status < 300
      ? db('idempotency_keys').where({ user_id: userId, key }).update({ status, body: JSON.stringify(body), location: typeof location === 'string' ? location : null })
      : db('idempotency_keys').where({ user_id: userId, key }).delete();
    settle.then(() => json(body), (err: unknown) => next(err));
    return res;
  };
  next();
};

/** Claims the key, or says why not (replay, 409, 422), in one transaction with the caller's key row locked. */
function claim(db: Db, userId: number, key: string, fingerprint: string, abandonedAfterMs: number): Promise<Outcome> {
  return transactionWithRetry(db, async (trx) => {
    const at = now();
    const query = trx('idempotency_keys').where({ user_id: userId, key }).first();
    if (isPostgres(trx)) query.forUpdate();
    let row = (await query) as Claim | undefined;
    const age = row ? at.getTime() - utcTextToMs(row.created_utc) : 0;
    if (row && (age >= RETENTION_MS || (row.status === null && age >= abandonedAfterMs))) {
      await trx('idempotency_keys').where({ user_id: userId, key }).delete();
      row = undefined;
    }
    if (row) {
      if (row.fingerprint !== fingerprint) throw new ApiError(422, 'rest_idempotency_key_reused', 'idempotency_key_reused');
      if (row.status === null) throw new ApiError(409, 'rest_idempotency_key_in_progress', 'idempotency_key_in_progress');
      return { kind: 'replay', status: Number(row.status), body: row.body as string, location: row.location };
    }
    // a concurrent claim of the same key makes this insert fail: the retry then finds it (409 or replay)
    await trx('idempotency_keys').insert({ user_id: userId, key, fingerprint, status: null, created_utc: utcNow() });
    return { kind: 'claimed' };
  });
}

/** JSON with object keys sorted, so that the same body sent with its fields in another order is the same body. */
function canonical(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) => (v && typeof v === 'object' && !Array.isArray(v)
    ? Object.fromEntries(Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
    : v));
}

/**
 * `Idempotency-Key` on creates (draft-ietf-httpapi-idempotency-key-header): the first request with a key is
 * processed; a repeat by the same caller with the same body within 24 hours answers the stored status and body with
 * `Idempotent-Replayed: true` and writes nothing; the same key with another body is 422; a repeat while the first
 * still runs is 409. Keys live in the database (`idempotency_keys`), so every node and every restart sees them.
 *
 * How: the key is claimed (a row without an answer, with a random `claim` token) in a short transaction before the
 * create runs. The create's own transaction writes onto its claim which record it made (`claimCreated`: resource,
 * id, status 201, the Location it answers), so the claim and the record commit together; the answer's body is added
 * after the commit, before it is sent. A repeat finds the stored body, or, when the process stopped between the commit
 * and that write, only the record: it renders that record anew with the create's own renderer (http/creates.ts). A
 * claim with a recorded record is never abandoned; one without (its node died before the create committed) is taken
 * over once it is older than twice the request timeout, and the create that held it, should it still commit, finds its
 * token gone and rolls back (409). Only successful creates are remembered: a refused one releases its claim, so the
 * caller may correct the body and retry with the same key. Cost: one header read for creates without a key.
 */
import { createHash, randomUUID } from 'node:crypto';
import type { RequestHandler } from 'express';
import type { Knex } from 'knex';
import type { Db } from '../db/types';
import { transactionWithRetry, utcNow, utcTextToMs } from '../db/dialect';
import { forUpdate } from '../db/dialects/locks';
import { now } from '../domain/clock';
import { caller } from './auth';
import { context } from './context';
import {
  createdLocation,
  sendCreated,
  type AnyRequest,
  type Created,
  type CreatedRenderers,
  type CreatedType,
} from './creates';
import { ApiError, invalidParam } from '../core/errors';

const RETENTION_MS = 24 * 3600 * 1000;
/** Visible ASCII, optionally as a structured-field string (`"…"`), as the draft defines the header. */
const KEY = /^"?([\x21\x23-\x7e]{1,255})"?$/;

interface ClaimRow {
  fingerprint: string;
  status: number | null;
  body: string | null;
  location: string | null;
  resource: CreatedType | null;
  record_id: number | string | null;
  created_utc: string;
}

/** The claim a request holds while its create runs: the row and the token that says it is still this request's. */
interface Claim {
  user_id: number;
  key: string;
  claim: string;
}

type Outcome = { kind: 'claimed'; claim: Claim } | { kind: 'replay'; row: ClaimRow };

/** The claims of the requests in flight, for `claimCreated` (weak: a finished request leaves nothing behind). */
const claims = new WeakMap<object, Claim>();

/** The middleware of every operation declaring `Idempotency-Key`; `renderers` answer replays whose body was lost. */
export function idempotentCreate(renderers: CreatedRenderers): RequestHandler {
  return async (req, res, next) => {
    const header = req.headers['idempotency-key'];
    if (header === undefined) return next();
    const key = typeof header === 'string' ? KEY.exec(header)?.[1] : undefined;
    if (!key) throw invalidParam('Idempotency-Key', 'idempotency_key_invalid');
    const userId = caller(req)?.id as number; // creates are authorised before this runs
    const { db, config } = context(req);
    const fingerprint = createHash('sha256')
      .update(`${req.method} ${req.originalUrl}\n${canonical(req.body)}`)
      .digest('hex');
    const outcome = await claimKey(db, userId, key, fingerprint, config.requestTimeoutMs * 2);
    if (outcome.kind === 'replay') {
      const { row } = outcome;
      res.setHeader('Idempotent-Replayed', 'true');
      if (row.body !== null) {
        if (row.location) res.setHeader('Location', row.location);
        res.status(Number(row.status)).type('application/json').send(row.body);
        return;
      }
      // the create committed, its answer was never stored: the record as the create renders it, for this caller
      const created: Created = { type: row.resource as CreatedType, id: Number(row.record_id) };
      await sendCreated(req, res, created, renderers[created.type], row.location);
      return;
    }
    const { claim } = outcome;
    claims.set(req, claim);
    const json = res.json.bind(res);
    res.json = (body?: unknown) => {
      // a success stores its body on the claim its create recorded; a refusal (nothing recorded) releases the claim
      const settle =
        res.statusCode >= 200 && res.statusCode < 300
          ? db('idempotency_keys')
              .where(claim)
              .whereNotNull('status')
              .update({ body: JSON.stringify(body) })
          : db('idempotency_keys').where(claim).whereNull('status').delete();
      // the answer goes out even when this write fails: a stored record is then rendered anew by a replay, and an
      // unreleased claim answers 409 until it counts as abandoned
      settle
        .catch((err: unknown) => req.log.warn({ err }, 'idempotency key: the answer could not be stored on its claim'))
        .then(() => json(body))
        .catch(next);
      return res;
    };
    next();
  };
}

/**
 * The create's hook (http/creates.ts `OnCreated`), in the create's transaction: records on the request's claim
 * which record it made. No claim (no `Idempotency-Key`): nothing. A claim taken over meanwhile (this request ran
 * past twice the request timeout and a repeat took the key): 409, and the create rolls back.
 */
export async function claimCreated(trx: Knex.Transaction, req: AnyRequest, created: Created): Promise<void> {
  const claim = claims.get(req);
  if (!claim) return;
  const recorded = await trx('idempotency_keys')
    .where(claim)
    .whereNull('status')
    .update({ status: 201, resource: created.type, record_id: created.id, location: createdLocation(req, created) });
  if (!recorded) throw new ApiError(409, 'rest_idempotency_key_in_progress', 'idempotency_key_in_progress');
}

/** Claims the key, or says why not (replay, 409, 422), in one transaction with the caller's key row locked. */
function claimKey(
  db: Db,
  userId: number,
  key: string,
  fingerprint: string,
  abandonedAfterMs: number,
): Promise<Outcome> {
  return transactionWithRetry(db, async (trx) => {
    const at = now();
    const query = trx('idempotency_keys').where({ user_id: userId, key }).first();
    forUpdate(trx, query);
    let row = (await query) as ClaimRow | undefined;
    const age = row ? at.getTime() - utcTextToMs(row.created_utc) : 0;
    if (row && (age >= RETENTION_MS || (row.status === null && age >= abandonedAfterMs))) {
      await trx('idempotency_keys').where({ user_id: userId, key }).delete();
      row = undefined;
    }
    if (row) {
      if (row.fingerprint !== fingerprint)
        throw new ApiError(422, 'rest_idempotency_key_reused', 'idempotency_key_reused');
      if (row.status === null)
        throw new ApiError(409, 'rest_idempotency_key_in_progress', 'idempotency_key_in_progress');
      return { kind: 'replay', row };
    }
    // a concurrent claim of the same key makes this insert fail: the retry then finds it (409 or replay)
    const claim: Claim = { user_id: userId, key, claim: randomUUID() };
    await trx('idempotency_keys').insert({ ...claim, fingerprint, status: null, created_utc: utcNow() });
    return { kind: 'claimed', claim };
  });
}

/** JSON with object keys sorted, so that the same body sent with its fields in another order is the same body. */
function canonical(value: unknown): string {
  return JSON.stringify(value ?? null, (_key, v: unknown) =>
    v && typeof v === 'object' && !Array.isArray(v)
      ? Object.fromEntries(
          Object.entries(v as Record<string, unknown>).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)),
        )
      : v,
  );
}

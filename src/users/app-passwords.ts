/**
 * Application passwords (WordPress semantics): per user, any number, each with a name; generated here (24
 * characters from an alphabet without look-alikes, ~140 bits), shown once, stored as an scrypt hash like user
 * passwords, beside a lookup digest (SHA-256) that finds the one candidate by index (D60). Usable with HTTP Basic in
 * place of the user's password, with the user's role, or read-only (`scope: read`). The only code that reads or
 * writes `app_passwords`.
 */
import { createHash, randomInt, randomUUID } from 'node:crypto';
import type { Executor } from '../db/types';
import { toNumber, utcNow, utcTextToMs } from '../db/dialect';
import { now } from '../domain/clock';
import { hashPassword, verifyPassword } from './passwords';

/** No 0/O, 1/l/I: a password read aloud or copied by hand stays unambiguous. */
const ALPHABET = 'ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz23456789';
const LENGTH = 24;
/** `last_used` and `last_ip` are written at most this often per password (not on every request). */
const LAST_USED_INTERVAL_MS = 60_000;

export type AppPasswordScope = 'read';

export interface AppPasswordRow {
  id: number;
  uuid: string;
  user_id: number;
  name: string;
  password_hash: string;
  /** SHA-256 of the secret; null on a password made before migration 012 and not used since. */
  lookup: string | null;
  scope: AppPasswordScope | null;
  created_utc: string;
  last_used_utc: string | null;
  last_ip: string | null;
}

/** What a caller authenticated with an application password carries (audit, read-only scope). */
export interface AppPasswordUse {
  id: number;
  uuid: string;
  name: string;
  scope: AppPasswordScope | null;
}

export function generateAppPassword(): string {
  let password = '';
  for (let i = 0; i < LENGTH; i++) password += ALPHABET[randomInt(ALPHABET.length)];
  return password;
}

/** WordPress shows application passwords in groups of four: spaces typed with them are not part of them. */
export function normaliseAppPassword(password: string): string {
  return password.replace(/\s+/g, '');
}

/** What is stored of a secret: its scrypt hash (the verifier) and its lookup digest. */
export interface StoredSecret {
  hash: string;
  lookup: string;
}

/** A new secret and what is stored of it (computed before any transaction: scrypt takes ~50-100 ms). */
export async function newSecret(): Promise<{ password: string } & StoredSecret> {
  const password = generateAppPassword();
  return { password, hash: await hashPassword(password), lookup: lookupDigest(password) };
}

/**
 * A fast unkeyed digest is safe here: the secrets are random with ~140 bits, so a stolen digest cannot be guessed
 * back offline, and the lookup needs no key that every node and every restart would have to share.
 */
function lookupDigest(secret: string): string {
  return createHash('sha256').update('calendar app password\0').update(secret).digest('base64url');
}

export async function insertAppPassword(
  db: Executor,
  userId: number,
  name: string,
  scope: AppPasswordScope | null,
  secret: StoredSecret,
): Promise<AppPasswordRow> {
  const [row] = await db<AppPasswordRow>('app_passwords')
    .insert({
      uuid: randomUUID(),
      user_id: userId,
      name,
      scope,
      password_hash: secret.hash,
      lookup: secret.lookup,
      created_utc: utcNow(),
    })
    .returning('*');
  return normalise(row);
}

export async function listAppPasswords(db: Executor, userId: number): Promise<AppPasswordRow[]> {
  return (await db<AppPasswordRow>('app_passwords').where({ user_id: userId }).orderBy('id')).map(normalise);
}

/** Deletes one (by uuid) or all of a user's application passwords; answers the rows deleted. */
export async function revokeAppPasswords(db: Executor, userId: number, uuid?: string): Promise<AppPasswordRow[]> {
  const query = () =>
    uuid === undefined
      ? db('app_passwords').where({ user_id: userId })
      : db('app_passwords').where({ user_id: userId, uuid });
  const rows = (await query().select('*')) as AppPasswordRow[];
  if (rows.length) await query().delete();
  return rows.map(normalise);
}

/**
 * Checks a known user's credential: `ok` when `password` is one of their application passwords (`app`) or their own
 * (`ownHash`). The lookup digest finds the one candidate application password, verified with scrypt; without one,
 * the user's own hash is verified instead, so an attempt costs one slow hash however many passwords the user has.
 * Only a user with passwords from before migration 012 pays more on a miss, one per such password, until each has
 * been used once (D60).
 */
export async function verifyCredential(
  db: Executor,
  userId: number,
  password: string,
  ownHash: string,
): Promise<{ app?: AppPasswordRow; ok: boolean }> {
  const candidate = normaliseAppPassword(password);
  // not an application password: only the user's own can match
  if (candidate.length !== LENGTH) return { ok: await verifyPassword(password, ownHash) };
  const lookup = lookupDigest(candidate);
  const found = await db<AppPasswordRow>('app_passwords').where({ user_id: userId, lookup }).first();
  if (found && (await verifyPassword(candidate, found.password_hash))) return { app: normalise(found), ok: true };
  if (!found && (await verifyPassword(password, ownHash))) return { ok: true };
  const legacy = await matchLegacy(db, userId, candidate);
  return { app: legacy, ok: legacy !== undefined };
}

/** The old path, for rows without a digest: one scrypt each; a match gets its digest, so this happens once. */
async function matchLegacy(db: Executor, userId: number, candidate: string): Promise<AppPasswordRow | undefined> {
  const rows = await db<AppPasswordRow>('app_passwords').where({ user_id: userId }).whereNull('lookup').orderBy('id');
  for (const row of rows) {
    if (!(await verifyPassword(candidate, row.password_hash))) continue;
    const lookup = lookupDigest(candidate);
    await db('app_passwords').where({ id: row.id }).update({ lookup });
    return normalise({ ...row, lookup });
  }
  return undefined;
}

/** The password by id, still there (a cached credential is checked against it on every request). */
export async function liveAppPassword(db: Executor, id: number): Promise<AppPasswordRow | undefined> {
  const row = await db<AppPasswordRow>('app_passwords').where({ id }).first();
  return row && normalise(row);
}

/** Records a use: at most once a minute per password, or when the address changes. */
export async function noteUse(db: Executor, row: AppPasswordRow, address: string): Promise<void> {
  const last = row.last_used_utc ? utcTextToMs(row.last_used_utc) : 0;
  if (now().getTime() - last < LAST_USED_INTERVAL_MS && row.last_ip === address) return;
  await db('app_passwords').where({ id: row.id }).update({ last_used_utc: utcNow(), last_ip: address });
}

export function appPasswordUse(row: AppPasswordRow): AppPasswordUse {
  return { id: row.id, uuid: row.uuid, name: row.name, scope: row.scope };
}

function normalise(row: AppPasswordRow): AppPasswordRow {
  return { ...row, id: toNumber(row.id), user_id: toNumber(row.user_id) };
}

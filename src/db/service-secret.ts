/**
 * The service's secret (migration 013): one random value in the database, the same for every node sharing it, so
 * that what a node derives from it (the keyed ETags of http/caching.ts) is the same on every node. It never changes,
 * so it is read once per database handle and kept.
 */
import type { Db } from './types';

const TABLE = 'service_secret';
const read = new WeakMap<Db, Promise<Buffer>>();

/** The secret as bytes; read at start-up (server.ts) and then served from memory. */
export function serviceSecret(db: Db): Promise<Buffer> {
  let secret = read.get(db);
  if (!secret) {
    secret = load(db);
    read.set(db, secret);
    secret.catch(() => read.delete(db)); // a failed read (database down) is tried again by the next caller
  }
  return secret;
}

async function load(db: Db): Promise<Buffer> {
  const row = (await db(TABLE).where({ id: 1 }).first('secret')) as { secret: string } | undefined;
  if (!row) throw new Error(`the ${TABLE} table has no row: run the migrations`);
  return Buffer.from(row.secret, 'base64url');
}

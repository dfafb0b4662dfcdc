/**
 * A version of the data that every committed write moves on, kept in the database so every node sees the same one:
 * triggers on each table bump it in the writing transaction (SQLite: per row, it has one writer; PostgreSQL: once
 * per transaction, at commit, so concurrent writers hold the version row only while committing). Anything derived
 * from the data and keyed by this version (a count, an ETag) can never outlive an acknowledged write.
 */
import type { Executor } from './types';
import { toNumber } from './dialect';
import { statement } from './statements';

/** Created, with the triggers that bump it, by migration 009 (a migration adding a table adds its trigger). */
const DATA_VERSION_TABLE = 'data_version';

const VERSION = statement((db) => db(DATA_VERSION_TABLE).where('id', 1).select('version'));

/** The current version (outside a transaction: the last committed one). */
export async function dataVersion(db: Executor): Promise<number> {
  const [row] = await VERSION.all<{ version: unknown }>(db);
  return toNumber(row.version);
}

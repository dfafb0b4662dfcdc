/**
 * Rate limiters whose counters live in a table of this database, so every node on it shares them.
 * rate-limiter-flexible has a class per engine: each takes a point in one atomic upsert written in its engine's SQL.
 */
import {
  RateLimiterPostgres,
  RateLimiterSQLite,
  type IRateLimiterStoreNoAutoExpiryOptions,
  type RateLimiterAbstract,
} from 'rate-limiter-flexible';
import type { Db } from '../types';
import { isPostgres } from '../dialect';

/** A limiter's own options: the table, its points and window (the database is `db`). */
export type TableLimiterOptions = Omit<IRateLimiterStoreNoAutoExpiryOptions, 'storeClient' | 'storeType'>;

/** A limiter counting in `options.tableName` of `db` (in `schema` on PostgreSQL: the connection's own when absent). */
export function tableRateLimiter(db: Db, options: TableLimiterOptions, schema?: string): RateLimiterAbstract {
  const stored = { storeClient: db, storeType: 'knex', ...options };
  return isPostgres(db) ? new RateLimiterPostgres({ ...stored, schemaName: schema }) : new RateLimiterSQLite(stored);
}

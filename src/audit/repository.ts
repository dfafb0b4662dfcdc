/** The audit trail's table: the only code that reads it, and the retention purge. */
import type { Executor } from '../db/types';
import type { Operation, Resource, Via } from '../core/audit';
import { toNumber, utcAt } from '../db/dialect';
import { now } from '../domain/clock';

export interface AuditRow {
  id: number;
  at_utc: string;
  user_id: number | null;
  login: string | null;
  app_password: string | null;
  address: string | null;
  /** Written only by core/audit.ts, so of its types. */
  via: Via;
  operation: Operation;
  resource: Resource;
  record_id: string;
  changes: string;
}

export interface AuditFilters {
  user?: number;
  resource?: string;
  id?: string;
  /** UTC text bounds, inclusive. */
  after?: string;
  before?: string;
}

/** Newest first. */
export async function listAudit(
  db: Executor,
  f: AuditFilters,
  limit: number,
  offset: number,
): Promise<{ rows: AuditRow[]; total: number }> {
  const query = db('audit_log');
  if (f.user !== undefined) query.where('user_id', f.user);
  if (f.resource !== undefined) query.where('resource', f.resource);
  if (f.id !== undefined) query.where('record_id', f.id);
  if (f.after !== undefined) query.where('at_utc', '>=', f.after);
  if (f.before !== undefined) query.where('at_utc', '<=', f.before);
  const [rows, [{ n }]] = await Promise.all([
    query.clone().orderBy('id', 'desc').limit(limit).offset(offset).select('*') as Promise<AuditRow[]>,
    query.clone().count({ n: '*' }) as Promise<Array<{ n: number | string }>>,
  ]);
  return {
    rows: rows.map((row) => ({
      ...row,
      id: toNumber(row.id),
      user_id: row.user_id === null ? null : toNumber(row.user_id),
    })),
    total: toNumber(n),
  };
}

export interface Purged {
  audit: number;
  keys: number;
  /** Login throttle counters whose window has ended. */
  throttle: number;
}

/**
 * Deletes the entries older than the retention, idempotency keys past their 24 hours, and the login throttle's
 * counters past their expiry (`expire` is in epoch milliseconds of the process clock, which rate-limiter-flexible
 * stamps them with; a counter without one never expires).
 */
export async function purgeExpired(db: Executor, retentionDays: number): Promise<Purged> {
  const utc = (ms: number) => utcAt(new Date(now().getTime() - ms));
  const audit = await db('audit_log')
    .where('at_utc', '<', utc(retentionDays * 86_400_000))
    .delete();
  const keys = await db('idempotency_keys').where('created_utc', '<', utc(86_400_000)).delete();
  const throttle = await db('auth_throttle').where('expire', '<', Date.now()).delete();
  return { audit, keys, throttle };
}

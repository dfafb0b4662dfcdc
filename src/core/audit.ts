/**
 * The audit trail: every write (through the API, the CLI or an import) records who (user, application password
 * name), when (service clock), from which address, which operation on which record, and which fields changed with
 * their old and new values. Secrets never: password fields are recorded as changed, without values. A write gives
 * its entries to the kernel (`w.audit(…)`, core/write.ts), which inserts them in the write's transaction, so the
 * record and its trail cannot disagree.
 */
import type { Executor } from '../db/types';
import { utcNow } from '../db/dialect';
import type { Caller } from '../users/roles';
import { KIND_NAMES, type Kind } from '../kinds/registry';

/** Where a write came from; `system`: the service on its own (publishing a scheduled post at its date). */
export type Via = 'api' | 'cli' | 'import' | 'system';

/** Who writes: a caller of the API (with its address), an operator at the CLI or an import, or the service. */
export interface Actor {
  userId: number | null;
  login: string | null;
  appPassword: string | null;
  address: string | null;
  via: Via;
}

/** The service's own records; the trail records writes of these and of every record kind (src/kinds/). */
const SERVICE_RECORDS = ['user', 'app_password', 'webhook'] as const;
export type Resource = Kind | (typeof SERVICE_RECORDS)[number];
export const AUDIT_RESOURCES: readonly Resource[] = [...KIND_NAMES, ...SERVICE_RECORDS];
export type Operation = 'create' | 'update' | 'trash' | 'delete' | 'revoke';

export interface Change {
  old?: unknown;
  new?: unknown;
}

/** Fields whose values never enter the trail (event passwords, password hashes, secrets). */
const SECRET = /password|secret|hash|token/i;
const REDACTED = '[redacted]';

export function actorOf(caller: Caller | undefined): Actor {
  return {
    userId: caller?.id ?? null,
    login: caller?.login ?? null,
    appPassword: caller?.appPassword?.name ?? null,
    address: caller?.address ?? null,
    via: caller?.via ?? 'api',
  };
}

/**
 * The fields of `after` whose value differs from `before` (all of them for a create: `before` undefined), with
 * both values; secrets as `[redacted]`.
 */
export function changes(
  before: Record<string, unknown> | undefined,
  after: Record<string, unknown>,
): Record<string, Change> {
  const out: Record<string, Change> = {};
  for (const [field, value] of Object.entries(after)) {
    if (value === undefined) continue;
    const old = before?.[field];
    if (before && JSON.stringify(old) === JSON.stringify(value)) continue;
    const secret = SECRET.test(field);
    out[field] =
      before === undefined
        ? { new: secret ? REDACTED : value }
        : { old: secret ? REDACTED : old, new: secret ? REDACTED : value };
  }
  return out;
}

/** Inserts one entry; the write kernel (core/write.ts) calls it for the entries a write gives it. */
export async function insertAudit(
  trx: Executor,
  who: Caller | Actor,
  operation: Operation,
  resource: Resource,
  recordId: number | string,
  fields: Record<string, Change> = {},
): Promise<void> {
  const actor = 'role' in who ? actorOf(who) : who;
  await trx('audit_log').insert({
    at_utc: utcNow(),
    user_id: actor.userId,
    login: actor.login,
    app_password: actor.appPassword,
    address: actor.address,
    via: actor.via,
    operation,
    resource,
    record_id: String(recordId),
    changes: JSON.stringify(fields),
  });
}

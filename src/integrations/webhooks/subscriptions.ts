/**
 * Webhook subscription writes, each one write of the kernel (core/write.ts) with its audit entry. The secret never
 * enters the trail: a rotation is recorded as `secret` changed, its values `[redacted]`.
 */
import { utcNow } from '../../db/dialect';
import type { Db } from '../../db/types';
import { changes } from '../../core/audit';
import { write } from '../../core/write';
import type { Caller } from '../../users/roles';
import * as repo from './repository';

export function create(
  db: Db,
  who: Caller,
  values: Parameters<typeof repo.insertWebhook>[1],
  audited: Record<string, unknown>,
): Promise<number> {
  return write(db, async (w) => {
    const id = await repo.insertWebhook(w.trx, values);
    w.audit(who, 'create', 'webhook', id, changes(undefined, audited));
    return id;
  });
}

export function update(
  db: Db,
  who: Caller,
  row: repo.WebhookRow,
  values: repo.WebhookValues,
  audited: Record<string, unknown>,
): Promise<void> {
  return write(db, async (w) => {
    await repo.updateWebhook(w.trx, row.id, values);
    w.audit(who, 'update', 'webhook', row.id, changes(row as unknown as Record<string, unknown>, audited));
  });
}

export function remove(db: Db, who: Caller, row: repo.WebhookRow): Promise<void> {
  return write(db, async (w) => {
    await repo.deleteWebhook(w.trx, row.id);
    w.audit(who, 'delete', 'webhook', row.id, { url: { old: row.url }, events: { old: row.events } });
  });
}

/** A new sealed secret; the previous one keeps signing until `previousUntilUtc`. */
export function rotate(db: Db, who: Caller, row: repo.WebhookRow, sealed: string, previousUntilUtc: string) {
  return write(db, async (w) => {
    await repo.updateWebhook(w.trx, row.id, {
      secret: sealed,
      previous_secret: row.secret,
      previous_secret_until_utc: previousUntilUtc,
      modified_utc: utcNow(),
    });
    w.audit(who, 'update', 'webhook', row.id, changes({ secret: row.secret }, { secret: sealed }));
  });
}

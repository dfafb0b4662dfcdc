/** Application password writes: one transaction each, with its audit entry (the secret never enters the trail). */
import type { Db } from '../db/knex';
import { audit, changes, type Actor } from '../audit/audit';
import type { Caller } from './roles';
import {
  insertAppPassword,
  listAppPasswords,
  newSecret,
  revokeAppPasswords,
  type AppPasswordRow,
  type AppPasswordScope,
} from './app-passwords';

export const listFor = listAppPasswords;

export async function create(
  db: Db,
  who: Caller | Actor,
  userId: number,
  name: string,
  scope: AppPasswordScope | null,
): Promise<{ row: AppPasswordRow; password: string }> {
  const { password, hash } = await newSecret();
  const row = await db.transaction(async (trx) => {
    const inserted = await insertAppPassword(trx, userId, name, scope, hash);
    await audit(
      trx,
      who,
      'create',
      'app_password',
      inserted.uuid,
      changes(undefined, { user_id: userId, name, scope }),
    );
    return inserted;
  });
  return { row, password };
}

/** Revokes one (by uuid) or all of the user's application passwords: every node refuses them from the next request. */
export function revoke(db: Db, who: Caller | Actor, userId: number, uuid?: string): Promise<AppPasswordRow[]> {
  return db.transaction(async (trx) => {
    const rows = await revokeAppPasswords(trx, userId, uuid);
    for (const row of rows)
      await audit(trx, who, 'revoke', 'app_password', row.uuid, { user_id: { old: userId }, name: { old: row.name } });
    return rows;
  });
}

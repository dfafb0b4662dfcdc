/** Application password writes: one kernel write each, with its audit entry (the secret never enters the trail). */
import type { Db } from '../../db/types';
import { changes, type Actor } from '../../core/audit';
import { write } from '../../core/write';
import type { Caller } from '../../users/roles';
import {
  insertAppPassword,
  listAppPasswords,
  newSecret,
  revokeAppPasswords,
  type AppPasswordRow,
  type AppPasswordScope,
} from '../../users/app-passwords';

export const listFor = listAppPasswords;

export async function create(
  db: Db,
  who: Caller | Actor,
  userId: number,
  name: string,
  scope: AppPasswordScope | null,
): Promise<{ row: AppPasswordRow; password: string }> {
  const { password, ...stored } = await newSecret();
  const row = await write(db, async (w) => {
    const inserted = await insertAppPassword(w.trx, userId, name, scope, stored);
    w.audit(who, 'create', 'app_password', inserted.uuid, changes(undefined, { user_id: userId, name, scope }));
    return inserted;
  });
  return { row, password };
}

/** Revokes one (by uuid) or all of the user's application passwords: every node refuses them from the next request. */
export function revoke(db: Db, who: Caller | Actor, userId: number, uuid?: string): Promise<AppPasswordRow[]> {
  return write(db, async (w) => {
    const rows = await revokeAppPasswords(w.trx, userId, uuid);
    for (const row of rows) {
      w.audit(who, 'revoke', 'app_password', row.uuid, { user_id: { old: userId }, name: { old: row.name } });
    }
    return rows;
  });
}

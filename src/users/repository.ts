/** Users: the only code that reads or writes the users table. */
import type { Executor } from '../db/types';
import { isUniqueViolation, utcNow } from '../db/dialect';
import { statement } from '../db/statements';
import type { Role } from './roles';
import { hashPassword } from './passwords';

export interface UserRow {
  id: number;
  login: string;
  password_hash: string;
  role: Role;
  created_utc: string;
}

export function findUserByLogin(db: Executor, login: string): Promise<UserRow | undefined> {
  return db<UserRow>('users').where({ login }).first();
}

const USER_BY_ID = statement((db, id: number) => db('users').where({ id }).select('*'));

export async function findUserById(db: Executor, id: number): Promise<UserRow | undefined> {
  const [row] = await USER_BY_ID.all<UserRow>(db, id);
  return row;
}

export function listUsers(db: Executor): Promise<Pick<UserRow, 'id' | 'login' | 'role' | 'created_utc'>[]> {
  return db<UserRow>('users').select('id', 'login', 'role', 'created_utc').orderBy('id');
}

export async function createUser(db: Executor, login: string, role: Role, password: string): Promise<UserRow> {
  const [row] = await db<UserRow>('users')
    .insert({ login, role, password_hash: await hashPassword(password), created_utc: utcNow() })
    .returning('*');
  return row;
}

export async function setPassword(db: Executor, id: number, password: string): Promise<void> {
  await db<UserRow>('users')
    .where({ id })
    .update({ password_hash: await hashPassword(password) });
}

/** Creates the bootstrap administrator unless a user with that login exists (docs/decisions.md D5). */
export async function ensureAdministrator(db: Executor, login: string, password: string): Promise<boolean> {
  if (await findUserByLogin(db, login)) return false;
  try {
    await createUser(db, login, 'administrator', password);
    return true;
  } catch (err) {
    if (isUniqueViolation(err)) return false; // another node created it at the same moment
    throw err;
  }
}

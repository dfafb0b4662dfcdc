/**
 * Counts the statements a database receives (round trips on PostgreSQL, statement runs on SQLite), below Knex and
 * the prepared statements of src/db/statements.ts alike: the driver's own entry points are wrapped while counting.
 */
import { Client } from 'pg';
import Database from 'better-sqlite3';

type Method = (...args: unknown[]) => unknown;

/** Runs `work` and returns how many statements reached the database meanwhile (every engine, every connection). */
export async function countQueries(work: () => Promise<unknown>): Promise<{ count: number; sql: string[] }> {
  const sql: string[] = [];
  const restore: Array<() => void> = [];
  const wrap = (target: Record<string, unknown>, name: string, text: (self: unknown, args: unknown[]) => string) => {
    const original = target[name] as Method;
    target[name] = function (this: unknown, ...args: unknown[]) {
      sql.push(text(this, args));
      return original.apply(this, args);
    };
    restore.push(() => {
      target[name] = original;
    });
  };
  wrap(Client.prototype as unknown as Record<string, unknown>, 'query', (_self, [config]) =>
    typeof config === 'string' ? config : String((config as { text?: string }).text),
  );
  // better-sqlite3's statements: every run goes through one of these
  const statement = Object.getPrototypeOf(new Database(':memory:').prepare('select 1')) as Record<string, unknown>;
  for (const name of ['all', 'get', 'run', 'iterate'])
    wrap(statement, name, (self) => String((self as { source: string }).source));
  try {
    await work();
  } finally {
    for (const undo of restore) undo();
  }
  return { count: sql.length, sql };
}

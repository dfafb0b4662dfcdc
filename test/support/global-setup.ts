/**
 * Decides once per run whether the PostgreSQL suites run: they do when TEST_DATABASE_URL (default
 * postgres://postgres@127.0.0.1:5432/test) answers; with REQUIRE_POSTGRES=1 (CI) an unreachable server fails the run.
 */
import knex from 'knex';

export default async function globalSetup(): Promise<void> {
  const url = (process.env.TEST_DATABASE_URL ||= 'postgres://postgres@127.0.0.1:5432/test');
  const db = knex({
    client: 'pg',
    connection: { connectionString: url, connectionTimeoutMillis: 3000 },
    pool: { min: 0, max: 1 },
  });
  try {
    await db.raw('select 1');
    // once, in `public`: a migration would install it in the schema of the first test file, dropped with that file
    await db.raw('create extension if not exists pg_trgm with schema public');
    process.env.TEST_POSTGRES = '1';
  } catch (err) {
    if (process.env.REQUIRE_POSTGRES === '1') {
      throw new Error(`REQUIRE_POSTGRES=1 but PostgreSQL at ${url} is unreachable: ${(err as Error).message}`);
    }
    process.env.TEST_POSTGRES = '0';
    console.warn(`PostgreSQL at ${url} is unreachable: running the SQLite suites only.`);
  } finally {
    await db.destroy();
  }
}

/**
 * Every table a read depends on bumps the data version (src/db/data-version.ts), on both engines: counts, search
 * matches and 304s are reused while the version stands, so a table whose writes do not move it serves stale answers.
 * A table no read depends on is listed below, with the reason. Every record kind's stamp table has `stamp` (the
 * representation cache's key, core/stamps.ts) and its versioned table `version` (`If-Match`, core/preconditions.ts).
 */
import { ENGINES, freshDatabase, type TestDatabase } from '../support/engines';
import { migrate } from '../../src/db/migrate';
import { listTables } from '../../src/db/catalogue';
import { isPostgres, rawRows } from '../../src/db/dialect';
import type { Executor } from '../../src/db/types';
import { declared } from '../../src/kinds/registry';
import { bumpDataVersionOn } from '../../src/db/migrations/kit/data-version';

/** Tables no read depends on: their writes need not, and should not, retire what was derived from the data. */
const NOT_READ_DEPENDENCIES: ReadonlyMap<string, string> = new Map([
  ['knex_migrations', "Knex's bookkeeping"],
  ['knex_migrations_lock', "Knex's bookkeeping"],
  ['data_version', 'the version itself'],
  ['service_secret', "keys the ETags' HMAC; written once per database"],
  ['auth_throttle', 'failed-login counters, checked on every attempt'],
  ['series_lease', "the recurrence horizon's lease (its metrics read it, no API read does)"],
  ['changes', 'the change feed: read by cursor, answered `no-store`'],
  ['change_feed', 'how far retention pruned the change feed'],
  ['webhooks', 'their reads hash their body (app.ts, isSingleRead)'],
  ['webhook_deliveries', 'the outbox: the dispatcher reads it, no cached read does'],
  ['webhook_attempts', 'delivery history: its reads hash their body'],
  ['app_passwords', 'checked by authentication on every request; their reads hash their body'],
  ['idempotency_keys', 'a replay renders its record anew'],
  ['audit_log', 'GET /audit hashes its body'],
  ['import_mappings', 'read by the importers only'],
]);

/** Tables with all three of insert, update and delete bumping the data version. */
async function bumpingTables(db: Executor): Promise<Set<string>> {
  const operations = new Map<string, Set<string>>();
  for (const { table, operation } of await dataVersionTriggers(db)) {
    operations.set(table, new Set([...(operations.get(table) ?? []), operation]));
  }
  return new Set([...operations].filter(([, ops]) => ops.size === 3).map(([table]) => table));
}

/** Each data-version trigger's table and operation (PostgreSQL: one trigger may cover several). */
async function dataVersionTriggers(db: Executor): Promise<Array<{ table: string; operation: string }>> {
  if (isPostgres(db)) {
    const rows = rawRows<{ table: string; type: number }>(
      await db.raw(`select c.relname as "table", t.tgtype as type from pg_trigger t
        join pg_class c on c.oid = t.tgrelid join pg_namespace n on n.oid = c.relnamespace
        join pg_proc p on p.oid = t.tgfoid
        where n.nspname = current_schema() and p.proname = 'bump_data_version'`),
    );
    const bits: Array<[string, number]> = [
      ['insert', 4],
      ['delete', 8],
      ['update', 16],
    ];
    return rows.flatMap(({ table, type }) =>
      bits.filter(([, bit]) => (type & bit) !== 0).map(([operation]) => ({ table, operation })),
    );
  }
  const rows = rawRows<{ table: string; sql: string }>(
    await db.raw(`select tbl_name as "table", sql from sqlite_master where type = 'trigger'`),
  );
  return rows.flatMap(({ table, sql }) => {
    const operation = /\bafter (insert|update|delete) on\b/i.exec(sql)?.[1].toLowerCase();
    const bumps = /\bupdate data_version set version = version \+ 1\b/i.test(sql);
    return operation && bumps ? [{ table, operation }] : [];
  });
}

/**
 * The tables that lack a data-version trigger and are not listed as no read's dependency. Ordinary tables only:
 * SQLite's FTS5 and R*Tree indexes are derived, kept by triggers on `search_docs` and `venues`, which bump it.
 */
async function unbumpedTables(db: Executor): Promise<string[]> {
  const bumping = await bumpingTables(db);
  return (await listTables(db))
    .map(({ name }) => name)
    .filter((name) => !bumping.has(name) && !NOT_READ_DEPENDENCIES.has(name))
    .sort();
}

/** Which of these tables lack the column (or are missing). */
async function lackingColumn(db: Executor, tables: readonly string[], column: string): Promise<string[]> {
  const columns = new Map((await listTables(db)).map(({ name, columns }) => [name, columns.map((c) => c.name)]));
  return tables.filter((table) => !columns.get(table)?.includes(column));
}

describe.each(ENGINES)('data version triggers and stamps (%s)', (engine) => {
  let database: TestDatabase;
  beforeAll(async () => {
    database = await freshDatabase(engine);
    await migrate(database.db);
  });
  afterAll(() => database.drop());

  it('every table a read depends on bumps the data version', async () => {
    expect(await unbumpedTables(database.db)).toEqual([]);
  });

  it('lists as no read dependency only tables that exist', async () => {
    const tables = new Set((await listTables(database.db)).map(({ name }) => name));
    expect([...NOT_READ_DEPENDENCIES.keys()].filter((table) => !tables.has(table))).toEqual([]);
  });

  it("every record kind's stamp table has `stamp` and its versioned table `version`", async () => {
    expect(await lackingColumn(database.db, declared('stampTable'), 'stamp')).toEqual([]);
    expect(await lackingColumn(database.db, declared('versionedTable'), 'version')).toEqual([]);
  });

  describe('the checks themselves', () => {
    let extra: TestDatabase;
    beforeAll(async () => {
      extra = await freshDatabase(engine);
      await migrate(extra.db);
      for (const table of ['rooms_without_trigger', 'rooms_with_trigger'])
        await extra.db.schema.createTable(table, (t) => t.increments('id'));
      await bumpDataVersionOn(extra.db, 'rooms_with_trigger');
    });
    afterAll(() => extra.drop());

    it('report a table without its trigger, and only it', async () => {
      expect(await unbumpedTables(extra.db)).toEqual(['rooms_without_trigger']);
    });

    it('report a table without the column, and only it', async () => {
      expect(await lackingColumn(extra.db, ['posts', 'rooms_with_trigger'], 'stamp')).toEqual(['rooms_with_trigger']);
    });
  });
});

/**
 * A write that waits too long for another connection's lock is answered 503 `rest_database_busy` with
 * `Retry-After`, never 500: SQLite's write lock held by another connection past the (here short) wait, and
 * PostgreSQL's `lock_timeout` reached on a table another connection has locked.
 */
import Database from 'better-sqlite3';
import knex, { type Knex } from 'knex';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';

const LOCK_WAIT_MS = 150;

/** Holds the lock writers need from another connection until `release` is called. */
async function holdWriteLock(service: TestService): Promise<() => Promise<void>> {
  const { url, schema } = service.database;
  if (url.startsWith('sqlite:')) {
    const other = new Database(url.slice('sqlite:'.length));
    other.exec('BEGIN IMMEDIATE');
    return async () => {
      other.exec('ROLLBACK');
      other.close();
    };
  }
  const other: Knex = knex({ client: 'pg', connection: url, searchPath: [schema as string], pool: { min: 1, max: 1 } });
  const trx = await other.transaction();
  await trx.raw('lock table venues in exclusive mode');
  return async () => {
    await trx.rollback();
    await other.destroy();
  };
}

describe.each(ENGINES)('a busy database on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine, {}, undefined, { lockWaitMs: LOCK_WAIT_MS });
  });
  afterAll(() => service.close());

  const createVenue = (venue: string) =>
    http(service)
      .post(`${NS}/venues`)
      .auth(...service.as('administrator'))
      .send({ venue });

  it('answers 503 rest_database_busy with Retry-After while another connection holds the lock, then writes', async () => {
    expect((await createVenue('Before the lock')).status).toBe(201); // the credential is remembered
    const release = await holdWriteLock(service);
    let busy: Awaited<ReturnType<typeof createVenue>>;
    try {
      busy = await http(service)
        .post(`${NS}/venues?i18n_language=de`)
        .auth(...service.as('administrator'))
        .send({ venue: 'While locked' });
    } finally {
      await release();
    }
    expect(busy.status).toBe(503);
    expect(busy.headers['retry-after']).toBe('2');
    expect(busy.body).toEqual({
      code: 'rest_database_busy',
      message: 'Die Datenbank ist mit anderen Schreibvorgängen beschäftigt. Versuche es in 2 Sekunden erneut.',
      data: { status: 503, retry_after: 2 },
    });
    expect((await createVenue('After the lock')).status).toBe(201);
    const names = (await http(service).get(`${NS}/venues`)).body.venues.map((v: { venue: string }) => v.venue);
    expect(names.sort()).toEqual(['After the lock', 'Before the lock']);
  });
});

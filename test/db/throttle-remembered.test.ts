/**
 * What the login throttle tells a remembered credential (`blockedFor`, asked on each of its requests in one read of
 * the counters): the wait `take` would refuse an attempt with, for the login from this client, the client over all
 * logins, and the login from anywhere unless this client is known to it; nothing once a window has ended.
 */
import { createThrottle, type Throttle } from '../../src/http/throttle';
import { migrate } from '../../src/db/migrate';
import { ENGINES, freshDatabase, type TestDatabase } from '../support/engines';

const WINDOW_SECONDS = 600;
const MAX = 2;

describe.each(ENGINES)('the throttle of a remembered credential on %s', (engine) => {
  let database: TestDatabase;
  let throttle: Throttle;
  beforeAll(async () => {
    database = await freshDatabase(engine);
    await migrate(database.db);
    throttle = createThrottle(
      database.db,
      { loginMaxFailures: MAX, loginFailureWindowSeconds: WINDOW_SECONDS },
      database.schema,
    );
  });
  afterAll(() => database.drop());

  /** `count` failed attempts (points taken, never given back). */
  const fail = async (count: number, attempt: (i: number) => [login: string, address: string]) => {
    for (let i = 0; i < count; i++) await throttle.take(...attempt(i));
  };

  it('waits nothing without counters', async () => {
    expect(await throttle.blockedFor('nobody', '10.0.0.1')).toBe(0);
  });

  it('waits out the login from this client once it reached its allowance, not from another client', async () => {
    await fail(MAX - 1, () => ['pair', '10.0.1.1']);
    expect(await throttle.blockedFor('pair', '10.0.1.1')).toBe(0);
    await fail(1, () => ['pair', '10.0.1.1']);
    expect(await throttle.blockedFor('pair', '10.0.1.1')).toBeGreaterThan(WINDOW_SECONDS - 60);
    expect(await throttle.blockedFor('pair', '10.0.1.2')).toBe(0);
  });

  it('waits out a client over all the logins it tried, for a login it never tried', async () => {
    await fail(MAX * 5, (i) => [`stranger-${i}`, '10.0.2.1']);
    expect(await throttle.blockedFor('someone-else', '10.0.2.1')).toBeGreaterThan(0);
    expect(await throttle.blockedFor('someone-else', '10.0.2.2')).toBe(0);
  });

  it('waits out a login past its ceiling from anywhere, but for a client it knows', async () => {
    await throttle.succeeded('ceiling', '10.0.3.1');
    await fail(MAX * 10, (i) => ['ceiling', `10.1.${i}.1`]);
    expect(await throttle.blockedFor('ceiling', '10.0.3.9')).toBeGreaterThan(0);
    expect(await throttle.blockedFor('ceiling', '10.0.3.1')).toBe(0);
  });

  it('waits nothing once the windows have ended', async () => {
    await database
      .db('auth_throttle')
      .where('key', 'not like', 'known:%')
      .update({ expire: Date.now() - 1 });
    expect(await throttle.blockedFor('pair', '10.0.1.1')).toBe(0);
    expect(await throttle.blockedFor('someone-else', '10.0.2.1')).toBe(0);
    expect(await throttle.blockedFor('ceiling', '10.0.3.9')).toBe(0);
  });
});

/**
 * Password guessing as attackers tried it, on every engine: many guesses in flight at once, guesses
 * from other addresses than the real user's, from many addresses in 127/8 or one IPv6 /64, and what a login
 * attempt costs in slow hashes (docs/decisions.md D59, D60, D61). Slow hashes are counted through the seam in
 * src/users/passwords.ts, never timed.
 */
import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { createUser } from '../../src/users/repository';
import { slowHashes } from '../../src/users/passwords';

const WRONG_APP_SHAPED = 'ABCDEFGHJKLMNPQRSTUVWXYZ'; // 24 characters of the application password alphabet

/** GET /categories with Basic credentials, sent from `source` (any address in 127/8 is this machine's). */
function from(service: TestService, source: string, login: string, password: string): Promise<number> {
  const { port } = service.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const req = httpRequest(
      { host: '127.0.0.1', port, path: `${NS}/categories`, localAddress: source, auth: `${login}:${password}` },
      (res) => {
        res.resume();
        res.on('end', () => resolve(res.statusCode ?? 0));
      },
    );
    req.on('error', reject);
    req.end();
  });
}

function tally(statuses: number[]): Record<number, number> {
  const counts: Record<number, number> = {};
  for (const status of statuses) counts[status] = (counts[status] ?? 0) + 1;
  return counts;
}

describe.each(ENGINES)('login attacks on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine, { LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW_SECONDS: '600' });
  });
  afterAll(() => service.close());

  const user = async (login: string) => {
    await createUser(service.database.db, login, 'editor', `${login} password`);
    return { login, password: `${login} password` };
  };

  it('checks LOGIN_MAX_FAILURES of 200 wrong passwords in flight at once, the rest 429 (finding 1)', async () => {
    const service10 = await startService(engine, { LOGIN_MAX_FAILURES: '10', LOGIN_FAILURE_WINDOW_SECONDS: '600' });
    try {
      const { login } = service10.users.author;
      const before = slowHashes();
      const statuses = await Promise.all(
        Array.from({ length: 200 }, (_, i) =>
          http(service10)
            .get(`${NS}/categories`)
            .auth(login, `wrong-${i}`)
            .then((res) => res.status),
        ),
      );
      expect(tally(statuses)).toEqual({ 401: 10, 429: 190 });
      expect(slowHashes() - before).toBe(10);
    } finally {
      await service10.close();
    }
  });

  it('lets the real user in while another address guesses, and throttles that address (finding 15)', async () => {
    const victim = await user('victim-one');
    const guesses = [];
    for (let i = 0; i < 4; i++) guesses.push(await from(service, '127.0.0.2', victim.login, `guess-${i}`));
    expect(guesses).toEqual([401, 401, 401, 429]);
    // the guessing address is refused even with the right password; the real user's is not
    expect(await from(service, '127.0.0.2', victim.login, victim.password)).toBe(429);
    expect(await from(service, '127.0.0.1', victim.login, 'a typo')).toBe(401);
    expect(await from(service, '127.0.0.1', victim.login, victim.password)).toBe(200);
  });

  it('gives guesses from many addresses in 127/8 at most 10 × LOGIN_MAX_FAILURES per login (finding 15)', async () => {
    const victim = await user('victim-two');
    expect(await from(service, '127.0.0.1', victim.login, victim.password)).toBe(200); // a known client
    const before = slowHashes();
    const sources = Array.from({ length: 20 }, (_, i) => `127.0.1.${i + 1}`);
    const statuses = await Promise.all(
      sources.flatMap((source) => [0, 1, 2].map((i) => from(service, source, victim.login, `${source}-${i}`))),
    );
    // 60 guesses: the login's ceiling (3 × 10) is checked, the rest refused
    expect(tally(statuses)).toEqual({ 401: 30, 429: 30 });
    expect(slowHashes() - before).toBe(30);
    // a client the login has never used waits; the real user's known client still gets in
    expect(await from(service, '127.0.2.1', victim.login, victim.password)).toBe(429);
    expect(await from(service, '127.0.0.1', victim.login, victim.password)).toBe(200);
  });

  it('throttles an address over all the logins it tries (five times LOGIN_MAX_FAILURES)', async () => {
    const statuses = [];
    for (let i = 0; i < 16; i++) statuses.push(await from(service, '127.0.3.1', `stranger-${i}`, 'x'));
    expect(tally(statuses)).toEqual({ 401: 15, 429: 1 });
    expect(await from(service, '127.0.3.2', 'stranger-16', 'x')).toBe(401);
  });

  it('costs one slow hash per attempt, whatever the number of application passwords (finding 10)', async () => {
    const none = await user('no-app-passwords');
    const four = await user('four-app-passwords');
    const secrets: string[] = [];
    for (let i = 0; i < 4; i++) {
      const res = await http(service)
        .post(`${NS}/users/me/application-passwords`)
        .auth(four.login, four.password)
        .send({ name: `app ${i}` });
      expect(res.status).toBe(201);
      secrets.push(res.body.password);
    }
    const cost = async (login: string, password: string, status: number) => {
      const before = slowHashes();
      expect((await http(service).get(`${NS}/categories`).auth(login, password)).status).toBe(status);
      return slowHashes() - before;
    };
    const costs = [
      await cost(none.login, WRONG_APP_SHAPED, 401),
      await cost(four.login, WRONG_APP_SHAPED, 401),
      await cost(none.login, 'not it', 401),
      await cost(four.login, 'not it', 401),
      await cost('nobody-at-all', WRONG_APP_SHAPED, 401),
      await cost(four.login, secrets[3], 200),
      await cost(none.login, none.password, 200),
    ];
    expect(costs).toEqual([1, 1, 1, 1, 1, 1, 1]);
  });

  it('keeps application passwords made before the lookup digest working, and fills it on first use', async () => {
    const owner = await user('legacy-owner');
    const made = await http(service)
      .post(`${NS}/users/me/application-passwords`)
      .auth(owner.login, owner.password)
      .send({ name: 'old one' });
    // as a row from before migration 012: no digest
    await service.database.db('app_passwords').where({ uuid: made.body.uuid }).update({ lookup: null });
    expect(await from(service, '127.0.4.1', owner.login, made.body.password)).toBe(200);
    const row = await service.database.db('app_passwords').where({ uuid: made.body.uuid }).first();
    expect(row.lookup).toEqual(expect.any(String));
    const before = slowHashes();
    expect(await from(service, '127.0.4.1', owner.login, WRONG_APP_SHAPED)).toBe(401);
    expect(slowHashes() - before).toBe(1);
  });
});

describe.each(ENGINES)('login throttle behind a proxy on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine, { LOGIN_MAX_FAILURES: '3', TRUST_PROXY: '1' });
  });
  afterAll(() => service.close());

  it('counts an IPv6 /64 as one client (finding 15)', async () => {
    const { login } = service.users.editor;
    const guess = (address: string) =>
      http(service).get(`${NS}/categories`).set('X-Forwarded-For', address).auth(login, `from ${address}`);
    const statuses = [];
    for (const suffix of ['a', 'b', 'c', 'd']) statuses.push((await guess(`2001:db8:1:2::${suffix}`)).status);
    expect(statuses).toEqual([401, 401, 401, 429]);
    expect((await guess('2001:db8:1:3::a')).status).toBe(401); // another /64: another client
    // IPv4 and IPv4-mapped IPv6 are one address
    for (let i = 0; i < 3; i++) await guess('198.51.100.7');
    expect((await guess('::ffff:198.51.100.7')).status).toBe(429);
  });
});

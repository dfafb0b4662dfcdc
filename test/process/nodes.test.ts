/**
 * Several nodes: two server processes on one PostgreSQL database (README, "Running several nodes"), started at the
 * same moment (their migrations take turns through the advisory lock), answering concurrent conflicting writes: the
 * same titles, the same term and venue names, PATCHes of one event, linking records while they are trashed or
 * deleted, deleting one event twice. No 5xx, no duplicate, no lost acknowledged update; the failed-login throttle
 * (per login and per client address, behind a proxy) is shared.
 *
 * PostgreSQL only: SQLite is single-node. The suite exists when the run has PostgreSQL (TEST_POSTGRES=1, as for
 * ENGINES); CI requires it (REQUIRE_POSTGRES=1), so it is never skipped there.
 */
import knex, { type Knex } from 'knex';
import pg from 'pg';
import { ENGINES, freshDatabaseUrl } from '../support/engines';
import { basic } from '../support/kit';
import { cli, freePort, INTEGRITY_QUERIES, killAll, request, startServer, type Answer } from './support';

const ADMIN = { ADMIN_LOGIN: 'chief', ADMIN_PASSWORD: 'a shared admin password' };
const AUTH = basic(ADMIN.ADMIN_LOGIN, ADMIN.ADMIN_PASSWORD);
/** Both nodes as behind a load balancer: TRUST_PROXY=1 (without X-Forwarded-* headers the socket's address counts). */
const ENV = { ...ADMIN, LOGIN_MAX_FAILURES: '3', LOGIN_FAILURE_WINDOW_SECONDS: '600', TRUST_PROXY: '1' };
const NAMESPACE = '/calendar/events/v1';
const TIMEOUT = 180_000;
/** src/db/migrate.ts's advisory lock key (not exported). */
const MIGRATION_LOCK_KEY = 4_242_001;

const statusesOf = (answers: Answer[]) => answers.map((a) => a.status);
const serverErrors = (answers: Answer[]) =>
  answers.filter((a) => a.status >= 500 || a.status === 0).map((a) => `${a.status} ${JSON.stringify(a.body)}`);

if (ENGINES.includes('postgres')) {
  describe('two API nodes on one PostgreSQL database', () => {
    let database: { url: string; drop(): Promise<void> };
    let sql: Knex;
    /** How many of the two nodes were seen waiting for the migration lock at once. */
    let waitingForMigrationLock = 0;
    /** The REST root of node A and of node B. */
    let nodes: [string, string];
    const node = (i: number) => nodes[i % 2];
    /** One request through node `i % 2`. */
    const call = (i: number, method: string, route: string, body?: unknown, auth: string | undefined = AUTH) =>
      request(node(i), method, route, { auth, body });
    const created: Record<string, number> = {};
    const tally = (name: string, n: number) => {
      created[name] = (created[name] ?? 0) + n;
    };

    beforeAll(async () => {
      database = await freshDatabaseUrl('postgres');
      sql = knex({ client: 'pg', connection: database.url, pool: { min: 0, max: 2 } });
      const ports = [await freePort(), await freePort()];
      // Both at once on an empty schema. So that they really meet at the migrations, the test holds the migration
      // lock until both nodes wait for it, then lets them go: they migrate one after the other.
      const tag = `calendar-node-${Math.random().toString(36).slice(2, 10)}`;
      const holder = new pg.Client({ connectionString: database.url });
      await holder.connect();
      let starting: Array<Promise<unknown>> = [];
      try {
        await holder.query('select pg_advisory_lock($1)', [MIGRATION_LOCK_KEY]);
        starting = ports.map((port, i) =>
          startServer(`${database.url}&application_name=${tag}-${i}`, port, ENV, { readyTimeoutMs: 120_000 }),
        );
        for (const start of starting) start.catch(() => undefined); // awaited below
        // both nodes compile and connect first: on a loaded machine that can take minutes (the bound is for hangs)
        for (const deadline = Date.now() + 150_000; Date.now() < deadline && waitingForMigrationLock < 2; ) {
          await new Promise((r) => setTimeout(r, 200));
          const { rows } = await holder.query(
            `select count(distinct a.pid) as n from pg_stat_activity a join pg_locks l on l.pid = a.pid
            where l.locktype = 'advisory' and not l.granted and a.application_name like $1`,
            [`${tag}-%`],
          );
          waitingForMigrationLock = Number(rows[0].n);
        }
      } finally {
        await holder.query('select pg_advisory_unlock_all()').catch(() => undefined);
        await holder.end();
      }
      await Promise.all(starting);
      nodes = [`http://127.0.0.1:${ports[0]}${NAMESPACE}`, `http://127.0.0.1:${ports[1]}${NAMESPACE}`];
    }, 2 * TIMEOUT);

    afterAll(async () => {
      console.log(`two nodes: conflicting requests sent ${JSON.stringify(created)}`);
      await killAll();
      await sql?.destroy();
      await database?.drop();
    }, TIMEOUT);

    it(
      'start together: migrations applied once (advisory lock), one administrator, both nodes ready',
      async () => {
        expect(waitingForMigrationLock).toBe(2); // both nodes were at their migrations at the same time
        const names = (await sql('knex_migrations').select('name').orderBy('id')).map((m: { name: string }) => m.name);
        expect(names.slice(0, 3)).toEqual(['001_initial', '002_events', '003_translations']);
        expect(new Set(names).size).toBe(names.length); // each applied once
        expect(await sql('users').where({ login: ADMIN.ADMIN_LOGIN }).count({ n: '*' })).toEqual([{ n: '1' }]);
        for (const root of nodes) expect((await fetch(new URL('/readyz', root))).status).toBe(200);
        // a write on one node is read on the other
        const category = await call(0, 'POST', '/categories', { name: 'Seen by both' });
        expect(category.status).toBe(201);
        expect((await call(1, 'GET', `/categories/${category.body.id}`)).body.name).toBe('Seen by both');
      },
      TIMEOUT,
    );

    it(
      'give one read the same keyed ETag, so a tag from one node is a 304 on the other (one secret, migration 013)',
      async () => {
        const category = await call(0, 'POST', '/categories', { name: 'Cached on both' });
        const host = { 'X-Forwarded-Host': 'calendar.example.org' }; // as behind the balancer: one host for both
        const read = (i: number, headers: Record<string, string> = {}) =>
          request(node(i), 'GET', `/categories/${category.body.id}`, { headers: { ...host, ...headers } });
        const [a, b] = [await read(0), await read(1)];
        expect(b.headers.get('etag')).toBe(a.headers.get('etag'));
        expect((await read(1, { 'If-None-Match': a.headers.get('etag') as string })).status).toBe(304);
        expect((await read(0, { 'If-None-Match': b.headers.get('etag') as string })).status).toBe(304);
      },
      TIMEOUT,
    );

    it(
      'events with the same title created through both nodes get distinct slugs, never a 5xx',
      async () => {
        const answers: Answer[] = [];
        for (let round = 0; round < 3; round++) {
          const body = {
            title: `Same Title ${round}`,
            start_date: '2031-06-01 10:00:00',
            end_date: '2031-06-01 12:00:00',
            status: 'publish',
          };
          answers.push(...(await Promise.all(Array.from({ length: 12 }, (_, i) => call(i, 'POST', '/events', body)))));
        }
        tally('same-title event creates', answers.length);
        const slugs = answers.filter((a) => a.status === 201).map((a) => a.body.slug as string);
        expect(new Set(slugs).size).toBe(slugs.length);
        expect(serverErrors(answers)).toEqual([]);
        expect(statusesOf(answers).every((s) => s === 201)).toBe(true);
      },
      TIMEOUT,
    );

    it(
      'categories and tags with the same name: exactly one 201 per taxonomy, the others 400 term_exists, never a 5xx',
      async () => {
        const problems: string[] = [];
        const all: Answer[] = [];
        for (let round = 0; round < 12; round++) {
          const name = `Contested ${round}`;
          for (const route of ['/categories', '/tags']) {
            const answers = await Promise.all(Array.from({ length: 6 }, (_, i) => call(i, 'POST', route, { name })));
            all.push(...answers);
            const winners = answers.filter((a) => a.status === 201);
            const losers = answers.filter((a) => a.status !== 201);
            if (winners.length !== 1)
              problems.push(
                `${route} "${name}": ${winners.length} creates answered 201 (slugs ${winners.map((w) => w.body.slug).join(', ')})`,
              );
            for (const loser of losers) {
              if (loser.status !== 400 || loser.body.code !== 'term_exists')
                problems.push(`${route} "${name}": ${loser.status} ${JSON.stringify(loser.body)}`);
              else if (winners.length === 1 && loser.body.data.term_id !== winners[0].body.id)
                problems.push(
                  `${route} "${name}": term_exists names ${loser.body.data.term_id}, not ${winners[0].body.id}`,
                );
            }
          }
        }
        tally('same-name term creates', all.length);
        expect(serverErrors(all)).toEqual([]);
        // names are unique per level (README, "Terms")
        const { rows } =
          await sql.raw(`select taxonomy, lower(name) as name, count(*) as n from terms where name like 'Contested %'
        group by taxonomy, parent, lower(name) having count(*) > 1 order by 1, 2`);
        expect(rows).toEqual([]);
        expect(problems).toEqual([]);
      },
      TIMEOUT,
    );

    it(
      'venues with the same name created through both nodes: duplicate reuse answers every 201 with the same venue',
      async () => {
        const problems: string[] = [];
        const all: Answer[] = [];
        for (let round = 0; round < 10; round++) {
          const venue = `Shared Hall ${round}`;
          const answers = await Promise.all(
            Array.from({ length: 8 }, (_, i) => call(i, 'POST', '/venues', { venue, city: 'Ghent' })),
          );
          all.push(...answers);
          const ids = new Set(answers.filter((a) => a.status === 201).map((a) => a.body.id));
          if (ids.size !== 1)
            problems.push(
              `"${venue}": ${ids.size} venues created (ids ${[...ids].join(', ')}, slugs ${answers.map((a) => a.body.slug).join(', ')})`,
            );
        }
        tally('same-name venue creates', all.length);
        expect(serverErrors(all)).toEqual([]);
        expect(statusesOf(all).every((s) => s === 201)).toBe(true);
        const { rows } =
          await sql.raw(`select lower(title) as name, count(*) as n from posts where type = 'venue' and status <> 'trash'
        and title like 'Shared Hall %' group by lower(title) having count(*) > 1 order by 1`);
        expect(rows).toEqual([]);
        expect(problems).toEqual([]);
      },
      TIMEOUT,
    );

    it(
      'PATCHes of one event alternating between the nodes keep every acknowledged change of each node',
      async () => {
        const event = await call(0, 'POST', '/events', {
          title: 'Patched from both sides',
          start_date: '2031-07-01 18:00:00',
          end_date: '2031-07-01 20:00:00',
          status: 'publish',
        });
        expect(event.status).toBe(201);
        const id = event.body.id as number;
        const last: { a?: Answer; b?: Answer } = {};
        const answers: Answer[] = [];
        const rounds = 15;
        await Promise.all([
          (async () => {
            // node A: the featured flag and the title (the events table and the posts table)
            for (let i = 0; i < rounds; i++) {
              const answer = await call(0, 'PATCH', `/events/${id}`, {
                featured: i % 2 === 0,
                title: `Patched from both sides, A${i}`,
              });
              answers.push(answer);
              if (answer.status === 200) last.a = answer;
            }
          })(),
          (async () => {
            // node B: the cost and the excerpt
            for (let i = 0; i < rounds; i++) {
              const answer = await call(1, 'PATCH', `/events/${id}`, { cost: `${10 + i}`, excerpt: `Excerpt B${i}` });
              answers.push(answer);
              if (answer.status === 200) last.b = answer;
            }
          })(),
        ]);
        tally('alternating PATCHes', answers.length);
        expect(serverErrors(answers)).toEqual([]);
        expect(statusesOf(answers).every((s) => s === 200)).toBe(true);
        const final = await call(1, 'GET', `/events/${id}`);
        expect({ featured: final.body.featured, title: final.body.title }).toEqual({
          featured: (rounds - 1) % 2 === 0,
          title: `Patched from both sides, A${rounds - 1}`,
        });
        expect({ cost: final.body.cost, excerpt: final.body.excerpt }).toEqual({
          cost: last.b?.body.cost,
          excerpt: last.b?.body.excerpt,
        });
        expect(final.body.excerpt).toContain(`Excerpt B${rounds - 1}`);
        expect(final.body.slug).toBe(event.body.slug); // a PATCH without slug keeps it
      },
      TIMEOUT,
    );

    it(
      'term counts stay exact when events with the same category and tag are created through both nodes at once',
      async () => {
        const [category, tag] = [
          await call(0, 'POST', '/categories', { name: 'Crowded category' }),
          await call(1, 'POST', '/tags', { name: 'Crowded tag' }),
        ];
        expect([category.status, tag.status]).toEqual([201, 201]);
        const answers: Answer[] = [];
        for (let round = 0; round < 3; round++) {
          answers.push(
            ...(await Promise.all(
              Array.from({ length: 12 }, (_, i) =>
                call(i, 'POST', '/events', {
                  title: `Crowd ${round}-${i}`,
                  start_date: '2031-06-10 10:00:00',
                  end_date: '2031-06-10 11:00:00',
                  status: 'publish',
                  categories: [category.body.id],
                  tags: [tag.body.id],
                }),
              ),
            )),
          );
        }
        tally('events sharing terms', answers.length);
        expect(serverErrors(answers)).toEqual([]);
        const published = answers.filter((a) => a.status === 201).length;
        const counts = [
          (await call(0, 'GET', `/categories/${category.body.id}`)).body.count,
          (await call(1, 'GET', `/tags/${tag.body.id}`)).body.count,
        ];
        expect(counts).toEqual([published, published]);
      },
      TIMEOUT,
    );

    it(
      'linking a venue through one node while trashing it through the other: no 5xx, and no event shows a trashed venue',
      async () => {
        const problems: string[] = [];
        const all: Answer[] = [];
        for (let round = 0; round < 10; round++) {
          const venue = await call(round, 'POST', '/venues', { venue: `Doomed Venue ${round}`, status: 'publish' });
          const event = await call(round + 1, 'POST', '/events', {
            title: `Hosted ${round}`,
            start_date: '2031-08-01 10:00:00',
            end_date: '2031-08-01 11:00:00',
            status: 'publish',
          });
          expect([venue.status, event.status]).toEqual([201, 201]);
          // the link through one node, the trash through the other, alternating which is which
          const [link, trash] = await Promise.all([
            call(round, 'PATCH', `/events/${event.body.id}`, { venue: venue.body.id }),
            call(round + 1, 'DELETE', `/venues/${venue.body.id}`),
          ]);
          all.push(link, trash);
          const finalVenue = await call(round, 'GET', `/venues/${venue.body.id}`);
          const finalEvent = await call(round + 1, 'GET', `/events/${event.body.id}`);
          const shown = finalEvent.body.venue;
          if (finalVenue.body.status === 'trash' && !Array.isArray(shown)) {
            const linkSaw = Array.isArray(link.body?.venue)
              ? 'no venue'
              : `the venue with status ${link.body?.venue?.status}`;
            problems.push(
              `round ${round}: link ${link.status}, trash ${trash.status}; event ${event.body.id} shows trashed venue ${shown.id} (the link's answer showed ${linkSaw})`,
            );
          }
        }
        tally('link-versus-trash pairs', all.length / 2);
        expect(serverErrors(all)).toEqual([]);
        expect(problems).toEqual([]);
      },
      TIMEOUT,
    );

    it(
      '(the same without a race) an event write naming a venue already in the trash does not link it',
      async () => {
        const venue = await call(0, 'POST', '/venues', { venue: 'Already trashed hall', status: 'publish' });
        expect((await call(1, 'DELETE', `/venues/${venue.body.id}`)).status).toBe(200);
        const event = await call(0, 'POST', '/events', {
          title: 'Hosted after the trash',
          start_date: '2031-08-02 10:00:00',
          end_date: '2031-08-02 11:00:00',
          status: 'publish',
        });
        const link = await call(1, 'PATCH', `/events/${event.body.id}`, { venue: venue.body.id });
        expect(link.status).toBeLessThan(500);
        expect((await call(0, 'GET', `/events/${event.body.id}`)).body.venue).toEqual([]);
      },
      TIMEOUT,
    );

    it(
      'linking a category, a venue or an organizer through one node while deleting it permanently through the other: 200 or 400, never a 5xx',
      async () => {
        const failures: string[] = [];
        let pairs = 0;
        for (let round = 0; round < 8; round++) {
          for (const [route, field, body, query] of [
            ['/categories', 'categories', { name: `Fleeting category ${round}` }, ''], // term deletes are permanent
            ['/venues', 'venue', { venue: `Fleeting venue ${round}` }, '?force=true'],
            ['/organizers', 'organizer', { organizer: `Fleeting organizer ${round}` }, '?force=true'],
          ] as const) {
            const record = await call(round, 'POST', route, body);
            const event = await call(round, 'POST', '/events', {
              title: `Linked ${route} ${round}`,
              start_date: '2031-08-03 10:00:00',
              end_date: '2031-08-03 11:00:00',
            });
            expect([record.status, event.status]).toEqual([201, 201]);
            const ref = field === 'venue' ? record.body.id : [record.body.id];
            const [link, removal] = await Promise.all([
              call(round, 'PATCH', `/events/${event.body.id}`, { [field]: ref }),
              call(round + 1, 'DELETE', `${route}/${record.body.id}${query}`),
            ]);
            pairs++;
            if (![200, 400].includes(link.status) || removal.status !== 200)
              failures.push(
                `${route} round ${round}: link ${link.status} ${link.status >= 400 ? link.body.code : ''}, delete ${removal.status}`,
              );
          }
        }
        tally('link-versus-delete pairs', pairs);
        expect(failures).toEqual([]);
      },
      TIMEOUT,
    );

    it(
      'deleting one event through both nodes at once: 200 and 410 (or 200 twice), and with force 200 and 404; never a 5xx',
      async () => {
        const problems: string[] = [];
        const all: Answer[] = [];
        for (let round = 0; round < 16; round++) {
          const force = round % 2 === 1;
          const event = await call(round, 'POST', '/events', {
            title: `Deleted twice ${round}`,
            start_date: '2031-09-01 10:00:00',
            end_date: '2031-09-01 11:00:00',
            status: 'publish',
          });
          expect(event.status).toBe(201);
          const route = `/events/${event.body.id}${force ? '?force=true' : ''}`;
          const answers = await Promise.all([call(0, 'DELETE', route), call(1, 'DELETE', route)]);
          all.push(...answers);
          const statuses = statusesOf(answers).sort();
          const allowed = force ? [200, 404, 410] : [200, 410];
          if (!statuses.includes(200) || !statuses.every((s) => allowed.includes(s)))
            problems.push(`round ${round}${force ? ' (force)' : ''}: ${statuses.join(', ')}`);
          const after = await call(round, 'GET', `/events/${event.body.id}`);
          const expected = force ? 404 : 200; // gone, or in the trash (the administrator reads it there)
          if (after.status !== expected)
            problems.push(`round ${round}: after the deletes GET answered ${after.status}`);
        }
        tally('double deletes', all.length / 2);
        expect(serverErrors(all)).toEqual([]);
        expect(problems).toEqual([]);
      },
      TIMEOUT,
    );

    it(
      'after all that: unique slugs and no orphan rows in the shared database',
      async () => {
        const problems: string[] = [];
        for (const [name, query] of INTEGRITY_QUERIES) {
          const { rows } = await sql.raw(query);
          if (Number(rows[0].n)) problems.push(`${name}: ${rows[0].n}`);
        }
        expect(problems).toEqual([]);
      },
      TIMEOUT,
    );

    describe('the failed-login throttle (shared through the auth_throttle table, LOGIN_MAX_FAILURES=3)', () => {
      it(
        'blocks a login on both nodes after 3 failures spread over them, with Retry-After, even with the right password',
        async () => {
          const made = cli(database.url, 'user', 'create', '--login', 'target', '--role', 'editor');
          expect(made.status).toBe(0);
          const right = basic('target', made.lines[0].password);
          const wrong = basic('target', 'not the password');
          const failures = [
            await call(0, 'GET', '/categories', undefined, wrong),
            await call(1, 'GET', '/categories', undefined, wrong),
            await call(0, 'GET', '/categories', undefined, wrong),
          ];
          expect(failures.map((f) => [f.status, f.body.code])).toEqual(Array(3).fill([401, 'incorrect_password']));
          for (const [i, auth] of [
            [1, wrong],
            [0, wrong],
            [1, right],
            [0, right],
          ] as const) {
            const blocked = await call(i, 'GET', '/categories', undefined, auth);
            expect([i, blocked.status, blocked.body.code]).toEqual([i, 429, 'rest_too_many_requests']);
            expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
            expect(Number(blocked.headers.get('retry-after'))).toBeLessThanOrEqual(600);
          }
          // other logins are not blocked
          expect((await call(1, 'GET', '/categories')).status).toBe(200);
          tally('throttled logins', 7);
        },
        TIMEOUT,
      );

      it(
        'also blocks the right password on a node that had already verified it (README: "429 … even with the right password")',
        async () => {
          const made = cli(database.url, 'user', 'create', '--login', 'regular', '--role', 'editor');
          expect(made.status).toBe(0);
          const right = basic('regular', made.lines[0].password);
          const wrong = basic('regular', 'a guess');
          expect([
            (await call(0, 'GET', '/categories', undefined, right)).status,
            (await call(1, 'GET', '/categories', undefined, right)).status,
          ]).toEqual([200, 200]);
          for (let i = 0; i < 3; i++) expect((await call(i, 'GET', '/categories', undefined, wrong)).status).toBe(401);
          const statuses = [];
          for (const i of [0, 1]) statuses.push((await call(i, 'GET', '/categories', undefined, right)).status);
          expect(statuses).toEqual([429, 429]);
        },
        TIMEOUT,
      );
    });

    describe('behind a load balancer (TRUST_PROXY=1)', () => {
      it(
        'takes the client address from X-Forwarded-For: the per-address throttle (5 × 3 failures) counts one client across both nodes',
        async () => {
          const from = (address: string) => ({ 'X-Forwarded-For': address });
          const attempt = (i: number, login: string, address: string) =>
            request(node(i), 'GET', '/categories', { auth: basic(login, 'whatever'), headers: from(address) });
          const failures: number[] = [];
          for (let i = 0; i < 15; i++) failures.push((await attempt(i, `stranger-${i}`, '203.0.113.7')).status);
          expect(failures).toEqual(Array(15).fill(401));
          const blocked = [
            await attempt(0, 'stranger-new', '203.0.113.7'),
            await attempt(1, 'stranger-newer', '203.0.113.7'),
          ];
          expect(blocked.map((b) => [b.status, b.body.code])).toEqual(Array(2).fill([429, 'rest_too_many_requests']));
          expect(Number(blocked[1].headers.get('retry-after'))).toBeGreaterThan(0);
          // another client behind the same balancer is not blocked
          expect((await attempt(1, 'stranger-new', '203.0.113.8')).status).toBe(401);
          tally('throttled logins', 18);
        },
        TIMEOUT,
      );

      it(
        'builds its URLs from X-Forwarded-Proto and X-Forwarded-Host (README: "scheme, host and client address")',
        async () => {
          const roots = await Promise.all(
            [0, 1].map(async (i) => {
              const res = await fetch(new URL('/', node(i)), {
                headers: { 'X-Forwarded-Proto': 'https', 'X-Forwarded-Host': 'calendar.example.org' },
              });
              return res.headers.get('x-tec-api-root');
            }),
          );
          expect(roots).toEqual(Array(2).fill('https://calendar.example.org/calendar/events/v1/'));
        },
        TIMEOUT,
      );
    });
  });
} else {
  // without PostgreSQL in this run there is nothing to test here (CI sets REQUIRE_POSTGRES=1, which fails the run
  // instead)
  it('runs on PostgreSQL only', () => {
    expect(process.env.REQUIRE_POSTGRES).not.toBe('1');
  });
}

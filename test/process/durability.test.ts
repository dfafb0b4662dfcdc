/**
 * Durability, on every engine: the server runs as a child process under concurrent writes and is killed with SIGKILL
 * while requests are in flight; after a restart on the same database every write that was answered 2xx is there as
 * answered, and the database is intact (SQLite: `integrity_check`, `foreign_key_check`; both: no orphan rows).
 * Several kill cycles run on one database, each checking the writes of all cycles so far.
 */
import Database from 'better-sqlite3';
import knex from 'knex';
import { ENGINES, freshDatabaseUrl, type Engine } from '../support/engines';
import { basic } from '../support/kit';
import {
  exited,
  freePort,
  INTEGRITY_QUERIES,
  killAll,
  mapLimit,
  outputOf,
  request,
  startServer,
  type Answer,
} from './support';

const ADMIN = { ADMIN_LOGIN: 'keeper', ADMIN_PASSWORD: 'a durable admin password' };
const AUTH = basic(ADMIN.ADMIN_LOGIN, ADMIN.ADMIN_PASSWORD);
const NAMESPACE = '/calendar/events/v1';

const CYCLES = 3;
const LOOPS = 8;
/** Bound on the requests of one loop in one cycle, whatever the timing. */
const MAX_ITERATIONS = 400;

interface AckedEvent {
  id: number;
  loop: number;
  title: string;
  slug: string;
  start_date: string;
  end_date: string;
  utc_start_date: string;
  utc_end_date: string;
  tag: string;
  /**
   * Every website value sent for this event, in order: the create's, then each PATCH's, with whether it was
   * acknowledged.
   */
  websites: Array<{ value: string; acked: boolean }>;
}

interface AckedCategory {
  id: number;
  name: string;
  slug: string;
  description: string;
}

interface CycleReport {
  cycle: number;
  killedAfterMs: number;
  acknowledged: { events: number; categories: number; patches: number };
  inFlightAtKill: number;
  unanswered: number;
}

describe.each(ENGINES)('durability on %s', (engine: Engine) => {
  let database: { url: string; drop(): Promise<void> };
  beforeAll(async () => {
    database = await freshDatabaseUrl(engine);
  });
  afterAll(async () => {
    await killAll();
    await database.drop();
  });

  it(`keeps every acknowledged write across ${CYCLES} SIGKILLs under concurrent load, and the database stays intact`, async () => {
    const events: AckedEvent[] = [];
    const categories: AckedCategory[] = [];
    const problems: string[] = [];
    const reports: CycleReport[] = [];
    const run = Math.random().toString(36).slice(2, 8);

    for (let cycle = 1; cycle <= CYCLES; cycle++) {
      const port = await freePort();
      const base = `http://127.0.0.1:${port}${NAMESPACE}`;
      const server = await startServer(database.url, port, ADMIN);

      let stop = false;
      let inFlight = 0;
      let unanswered = 0;
      const acked = { events: 0, categories: 0, patches: 0 };
      const send = async (method: string, route: string, body: unknown): Promise<Answer> => {
        inFlight++;
        const answer = await request(base, method, route, { auth: AUTH, body });
        inFlight--;
        if (answer.status === 0) unanswered++;
        else if (answer.status < 200 || answer.status >= 300) {
          problems.push(`cycle ${cycle}: ${method} ${route} answered ${answer.status} ${JSON.stringify(answer.body)}`);
        }
        return answer;
      };

      /** The `i`-th write of loop `l`: mostly event creates, then categories, then PATCHes of the loop's own events. */
      const step = async (l: number, i: number) => {
        {
          const own = events.filter((e) => e.loop === l);
          const kind = i % 4 === 3 && own.length ? 'patch' : i % 4 === 1 ? 'category' : 'event';
          if (kind === 'event') {
            const day = String(1 + ((cycle * 7 + l * 3 + i) % 28)).padStart(2, '0');
            const hour = String(8 + (i % 10)).padStart(2, '0');
            const title = `Durable ${run} c${cycle} l${l} n${i}`;
            const website = `https://example.com/${run}/c${cycle}/l${l}/n${i}/created`;
            const tag = `durable-${run}-l${l}`;
            const body = {
              title,
              website,
              status: 'publish',
              tags: [tag],
              description: `<p>Load event ${i} of loop ${l}</p>`,
              start_date: `2031-05-${day} ${hour}:00:00`,
              end_date: `2031-05-${day} ${hour}:45:00`,
            };
            const answer = await send('POST', '/events', body);
            if (answer.status === 201) {
              acked.events++;
              const b = answer.body;
              events.push({
                id: b.id,
                loop: l,
                title: b.title,
                slug: b.slug,
                start_date: b.start_date,
                end_date: b.end_date,
                utc_start_date: b.utc_start_date,
                utc_end_date: b.utc_end_date,
                tag,
                websites: [{ value: b.website, acked: true }],
              });
              if (b.title !== title || b.start_date !== body.start_date || b.website !== website) {
                problems.push(`cycle ${cycle}: the create answered ${JSON.stringify(b)} for ${JSON.stringify(body)}`);
              }
            }
          } else if (kind === 'category') {
            const body = { name: `Durable ${run} c${cycle} l${l} n${i}`, description: `Category ${i} of loop ${l}` };
            const answer = await send('POST', '/categories', body);
            if (answer.status === 201) {
              acked.categories++;
              categories.push({
                id: answer.body.id,
                name: answer.body.name,
                slug: answer.body.slug,
                description: answer.body.description,
              });
            }
          } else {
            // patches of the loop's own events, one at a time: the order of acknowledgements is the order of writes
            const target = own[Math.floor(Math.random() * own.length)];
            const entry = { value: `https://example.com/${run}/c${cycle}/l${l}/n${i}/patched`, acked: false };
            target.websites.push(entry);
            const answer = await send('PATCH', `/events/${target.id}`, { website: entry.value });
            if (answer.status === 200) {
              acked.patches++;
              entry.acked = true;
              if (answer.body.website !== entry.value)
                problems.push(`cycle ${cycle}: PATCH ${target.id} answered website ${answer.body.website}`);
            }
          }
        }
      };
      const loop = async (l: number) => {
        for (let i = 0; i < MAX_ITERATIONS && !stop; i++) await step(l, i);
      };

      // warm-up (first password check, first compilation of each operation's validator), one write of each kind
      for (let i = 0; i < 4; i++) await step(LOOPS, i);
      const started = Date.now();
      const loops = Array.from({ length: LOOPS }, (_, l) => loop(l));
      // kill a randomised moment into the load, once a few writes have been answered (bounded on a slow machine)
      const delay = 300 + Math.floor(Math.random() * 1200);
      await new Promise((r) => setTimeout(r, delay));
      for (let waited = 0; acked.events + acked.categories < 5 && waited < 10_000; waited += 50)
        await new Promise((r) => setTimeout(r, 50));
      const inFlightAtKill = inFlight;
      stop = true;
      server.kill('SIGKILL');
      await exited(server);
      const killedAfterMs = Date.now() - started;
      await Promise.all(loops);
      reports.push({ cycle, killedAfterMs, acknowledged: acked, inFlightAtKill, unanswered });

      // restart on the same database: migrations are idempotent, and every acknowledged write is there
      const restartPort = await freePort();
      const again = `http://127.0.0.1:${restartPort}${NAMESPACE}`;
      const restarted = await startServer(database.url, restartPort, ADMIN);
      try {
        problems.push(...(await verifyEvents(again, events)), ...(await verifyCategories(again, categories)));
        problems.push(...(await integrityProblems(engine, database.url)));
      } finally {
        restarted.kill('SIGKILL');
        await exited(restarted);
      }
      if (problems.length) problems.push(`server output:\n${outputOf(restarted)}`);
      expect(problems).toEqual([]);
      expect(unanswered).toBeLessThanOrEqual(inFlightAtKill); // no request failed for another reason than the kill
    }

    const total = reports.reduce(
      (sum, r) => ({
        writes: sum.writes + r.acknowledged.events + r.acknowledged.categories + r.acknowledged.patches,
        inFlight: sum.inFlight + r.inFlightAtKill,
      }),
      { writes: 0, inFlight: 0 },
    );
    console.log(
      `durability on ${engine}: ${reports.length} SIGKILLs, ${total.writes} acknowledged writes ` +
        `(${events.length} events, ${categories.length} categories, ${total.writes - events.length - categories.length} patches), ` +
        `${total.inFlight} requests in flight at the kills\n${reports.map((r) => JSON.stringify(r)).join('\n')}`,
    );
    expect(events.length).toBeGreaterThan(0);
    expect(categories.length).toBeGreaterThan(0);
  }, 240_000);
});

/** Each acknowledged event as acknowledged; its website is the last acknowledged one or a later unacknowledged one. */
async function verifyEvents(base: string, events: AckedEvent[]): Promise<string[]> {
  const problems = await mapLimit(events, 6, async (event) => {
    const answer = await request(base, 'GET', `/events/${event.id}`, { auth: AUTH });
    if (answer.status !== 200)
      return [`event ${event.id} (${event.title}): GET answered ${answer.status} ${JSON.stringify(answer.body)}`];
    const b = answer.body;
    const found: string[] = [];
    for (const field of ['title', 'slug', 'start_date', 'end_date', 'utc_start_date', 'utc_end_date'] as const) {
      if (b[field] !== event[field])
        found.push(
          `event ${event.id}: ${field} is ${JSON.stringify(b[field])}, acknowledged ${JSON.stringify(event[field])}`,
        );
    }
    const last = event.websites.map((w) => w.acked).lastIndexOf(true);
    const allowed = event.websites.slice(last).map((w) => w.value);
    if (!allowed.includes(b.website))
      found.push(
        `event ${event.id}: website is ${b.website}, acknowledged ${allowed[0]} (later ones unacknowledged: ${allowed.slice(1).join(', ') || 'none'})`,
      );
    if (!(b.tags as Array<{ name: string }>).some((t) => t.name === event.tag))
      found.push(`event ${event.id}: lost its tag ${event.tag}`);
    return found;
  });
  return problems.flat();
}

async function verifyCategories(base: string, categories: AckedCategory[]): Promise<string[]> {
  const problems = await mapLimit(categories, 6, async (category) => {
    const answer = await request(base, 'GET', `/categories/${category.id}`, { auth: AUTH });
    if (answer.status !== 200)
      return [
        `category ${category.id} (${category.name}): GET answered ${answer.status} ${JSON.stringify(answer.body)}`,
      ];
    const b = answer.body;
    return (['name', 'slug', 'description'] as const)
      .filter((field) => b[field] !== category[field])
      .map(
        (field) =>
          `category ${category.id}: ${field} is ${JSON.stringify(b[field])}, acknowledged ${JSON.stringify(category[field])}`,
      );
  });
  return problems.flat();
}

/** SQLite: the file opened read-only beside the running server; PostgreSQL: the test's schema. */
async function integrityProblems(engine: Engine, url: string): Promise<string[]> {
  const problems: string[] = [];
  if (engine === 'sqlite') {
    const file = new Database(url.slice('sqlite:'.length), { readonly: true, fileMustExist: true });
    try {
      const integrity = file.pragma('integrity_check') as Array<{ integrity_check: string }>;
      if (integrity.length !== 1 || integrity[0].integrity_check !== 'ok')
        problems.push(`integrity_check: ${JSON.stringify(integrity)}`);
      const foreignKeys = file.pragma('foreign_key_check') as unknown[];
      if (foreignKeys.length) problems.push(`foreign_key_check: ${JSON.stringify(foreignKeys.slice(0, 20))}`);
      for (const [name, sql] of INTEGRITY_QUERIES) {
        const { n } = file.prepare(sql).get() as { n: number };
        if (Number(n)) problems.push(`${name}: ${n}`);
      }
    } finally {
      file.close();
    }
    return problems;
  }
  const db = knex({ client: 'pg', connection: url, pool: { min: 0, max: 1 } });
  try {
    for (const [name, sql] of INTEGRITY_QUERIES) {
      const { rows } = await db.raw(sql);
      if (Number(rows[0].n)) problems.push(`${name}: ${rows[0].n}`);
    }
  } finally {
    await db.destroy();
  }
  return problems;
}

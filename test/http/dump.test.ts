/**
 * The portable dump between engines: a database seeded through the API is exported from one engine and imported
 * into an empty database of the other (and of the same); the API then answers a list of reads identically on both,
 * the next ids are the same, and re-exporting gives the same bytes. Plus what the import refuses, and tables that
 * later migrations add (the dump reads the catalogue).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import { ENGINES, freshDatabase, type Engine } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { exportToFile } from '../../src/ops/backup';
import {
  dataTables,
  DumpError,
  importDump,
  MIGRATION_SEEDED_TABLES,
  SKIPPED_TABLES,
  type DumpHeader,
} from '../../src/ops/dump';
import { listTables } from '../../src/db/catalogue';
import { migrate } from '../../src/db/migrate';
import type { Db } from '../../src/db/types';

/** Webhooks to a loopback address may be subscribed (nothing is delivered: no dispatcher runs in these tests). */
const HOOKS = { WEBHOOK_ALLOW_PRIVATE: '1' };
const PAIRS: Array<[Engine, Engine]> = ENGINES.flatMap((from) => ENGINES.map((to) => [from, to] as [Engine, Engine]));
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'dump-test-'));
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));
let serial = 0;
const tmpFile = () => path.join(dir, `dump-${++serial}.jsonl`);

interface Seeded {
  webhookId: number;
  eventIds: number[];
  venueId: number;
  organizerIds: number[];
  categoryIds: number[];
  tagId: number;
  slug: string;
}

/** Every kind of record this build has, through the API: terms with translations, venues, organizers, events. */
async function seed(service: TestService): Promise<Seeded> {
  const as = service.as('editor');
  const post = async (route: string, body: object, lang?: string) => {
    const res = await http(service)
      .post(`${NS}${route}`)
      .query(lang ? { i18n_language: lang } : {})
      .auth(...as)
      .send(body);
    if (res.status >= 300) throw new Error(`${route}: ${res.status} ${JSON.stringify(res.body)}`);
    return res.body as { id: number; slug: string };
  };
  const parent = await post('/categories', { name: 'Music', description: 'Sounds <b>loud</b>' });
  const child = await post('/categories', { name: 'Jazz & Blues', parent: parent.id });
  await post(`/categories/${child.id}`, { name: 'Jazz et blues', description: 'Des sons' }, 'fr');
  const tag = await post('/tags', { name: 'outdoor' });
  const venue = await post('/venues', {
    venue: 'Harbour Hall',
    address: '1 Quay',
    city: 'Oslo',
    country: 'Norway',
    geo_lat: 59.9075,
    geo_lng: 10.7383,
    show_map: false,
  });
  const organizers = [
    await post('/organizers', { organizer: 'Ada Org', email: 'ada@example.org' }),
    await post('/organizers', { organizer: 'Bo Org', phone: '+47 1234' }),
  ];
  const events: Array<{ id: number; slug: string }> = [];
  for (let i = 0; i < 6; i++) {
    events.push(
      await post('/events', {
        title: `Concert ${i} ÆØÅ 東京`,
        description: `<p>Night ${i}</p>`,
        excerpt: `Short ${i}`,
        start_date: `2027-07-0${i + 1} 19:30:00`,
        end_date: `2027-07-0${i + 1} 22:00:00`,
        timezone: i % 2 ? 'Europe/Oslo' : 'America/New_York',
        all_day: i === 3,
        featured: i === 1,
        sticky: i === 2,
        cost: i === 4 ? '10 – 25' : '',
        venue: venue.id,
        organizer: i < 3 ? organizers.map((o) => o.id) : [organizers[1].id],
        categories: [child.id, ...(i % 2 ? [parent.id] : [])],
        tags: i > 2 ? [tag.id] : [],
        image: i === 0 ? 'https://images.example.net/poster.jpg' : undefined,
        status: i === 5 ? 'draft' : 'publish',
      }),
    );
  }
  await post(`/events/${events[0].id}`, { title: 'Konsert null', description: '<p>Natt</p>' }, 'nb');
  // recurring series: a bounded one with an exception and an extra date, and an open-ended one
  const weekly = await post('/events', {
    title: 'Weekly class',
    start_date: '2027-07-06 18:00:00',
    end_date: '2027-07-06 19:30:00',
    venue: venue.id,
    categories: [child.id],
    recurrence: {
      rrule: 'FREQ=WEEKLY;BYDAY=TU,TH;UNTIL=20270731',
      rdates: ['2027-08-04 18:00:00'],
      exdates: ['2027-07-13 18:00:00'],
    },
  });
  events.push(weekly);
  events.push(
    await post('/events', {
      title: 'Every first Monday',
      start_date: '2027-07-05 09:00:00',
      end_date: '2027-07-05 10:00:00',
      recurrence: { rrule: 'FREQ=MONTHLY;BYDAY=1MO' },
    }),
  );
  // a webhook subscription (never delivered here: no dispatcher runs), then writes it gets deliveries for
  const hook = await http(service)
    .post(`${NS}/webhooks`)
    .auth(...service.as('administrator'))
    .send({ url: 'http://127.0.0.1:9/hook', events: ['event.updated', 'event.deleted'], description: 'moved along' })
    .expect(201);
  await post(`/events/${events[1].id}`, { excerpt: 'Updated once' });
  await http(service)
    .delete(`${NS}/events/${events[4].id}`)
    .auth(...as)
    .expect(200); // trashed
  const gone = await post('/events', {
    title: 'Deleted for good',
    start_date: '2027-08-01 10:00:00',
    end_date: '2027-08-01 11:00:00',
  });
  await http(service)
    .delete(`${NS}/events/${gone.id}`)
    .query({ force: true })
    .auth(...as)
    .expect(200); // its id stays used
  return {
    webhookId: hook.body.id,
    eventIds: events.map((e) => e.id),
    venueId: venue.id,
    organizerIds: organizers.map((o) => o.id),
    categoryIds: [parent.id, child.id],
    tagId: tag.id,
    slug: events[1].slug,
  };
}

/** The reads compared answer by answer: lists, singles, filters, languages, anonymous and signed in. */
function reads(s: Seeded): Array<{ path: string; auth?: boolean }> {
  return [
    { path: '/events' },
    { path: '/events?per_page=2&page=2' },
    { path: '/events?status=draft', auth: true },
    { path: '/events?status=trash', auth: true },
    { path: `/events?categories=${s.categoryIds[0]}` },
    { path: `/events?tags=${s.tagId}` },
    { path: `/events?venue=${s.venueId}` },
    { path: `/events?organizer=${s.organizerIds[0]}` },
    { path: '/events?search=concert' },
    { path: '/events?featured=true' },
    { path: '/events?start_date=2027-07-03&end_date=2027-07-05' },
    { path: '/events?geoloc_lat=59.9&geoloc_lng=10.7&geoloc_radius=10' },
    { path: '/events?i18n_language=nb' },
    ...s.eventIds.map((id) => ({ path: `/events/${id}`, auth: true })),
    { path: `/events/${s.eventIds[0]}?i18n_language=nb` },
    { path: `/events/by-slug/${s.slug}` },
    { path: '/events?per_page=50&start_date=2027-07-01&end_date=2028-12-31' },
    { path: `/events/occurrences/${s.eventIds[6]}` },
    { path: `/events/occurrences/${s.eventIds[7]}?per_page=30` },
    { path: '/events?search=weekly' },
    { path: '/events?search=konsert&i18n_language=nb' },
    { path: '/venues' },
    { path: `/venues/${s.venueId}` },
    { path: '/organizers' },
    ...s.organizerIds.map((id) => ({ path: `/organizers/${id}` })),
    { path: '/categories' },
    { path: '/categories?i18n_language=fr' },
    ...s.categoryIds.map((id) => ({ path: `/categories/${id}?i18n_language=fr` })),
    { path: '/tags' },
    { path: `/tags/${s.tagId}` },
    { path: '/changes', auth: true },
    { path: '/changes?limit=5', auth: true },
    { path: '/webhooks', auth: true },
    { path: `/webhooks/${s.webhookId}`, auth: true },
    { path: `/webhooks/${s.webhookId}/deliveries`, auth: true },
  ];
}

async function answer(service: TestService, read: { path: string; auth?: boolean }) {
  const req = http(service).get(`${NS}${read.path}`);
  const res = await (read.auth ? req.auth(...service.as('administrator')) : req);
  const { port } = service.server.address() as { port: number };
  // links name the server answering: the same once its address is taken out
  const body = JSON.parse(JSON.stringify(res.body).split(`127.0.0.1:${port}`).join('HOST'));
  return {
    path: read.path,
    status: res.status,
    total: res.headers['x-wp-total'],
    pages: res.headers['x-wp-totalpages'],
    body,
  };
}

describe.each(PAIRS)('a dump from %s imported into %s', (from, to) => {
  let source: TestService;
  let target: TestService;
  let seeded: Seeded;
  let file: string;
  beforeAll(async () => {
    source = await startService(from, HOOKS);
    seeded = await seed(source);
    file = tmpFile();
    await exportToFile(source.database.db, file);
    target = await startService(to, HOOKS, undefined, {
      createUsers: false,
      prepare: (db) => importDump(db, fs.createReadStream(file)),
    });
    target.users = source.users;
    target.as = source.as;
  }, 120_000);
  afterAll(async () => {
    await source?.close();
    await target?.close();
  });

  it('answers every read identically', async () => {
    for (const read of reads(seeded)) {
      const [want, got] = await Promise.all([answer(source, read), answer(target, read)]);
      expect(got).toEqual(want);
    }
  }, 120_000);

  it('writes the same bytes when the imported database is exported again', async () => {
    const again = tmpFile();
    await exportToFile(target.database.db, again);
    expect(fs.readFileSync(again, 'utf8')).toBe(fs.readFileSync(file, 'utf8'));
  });

  it('keeps the sequences: the next records get the same ids on both, past deleted ones', async () => {
    const body = { title: 'After the move', start_date: '2027-09-01 10:00:00', end_date: '2027-09-01 11:00:00' };
    const created = await Promise.all(
      [source, target].map(
        async (s) =>
          (
            await http(s)
              .post(`${NS}/events`)
              .auth(...s.as('editor'))
              .send(body)
              .expect(201)
          ).body,
      ),
    );
    expect(created[1].id).toBe(created[0].id);
    expect(created[0].id).toBeGreaterThan(Math.max(...seeded.eventIds) + 1);
    const tags = await Promise.all(
      [source, target].map(
        async (s) =>
          (
            await http(s)
              .post(`${NS}/tags`)
              .auth(...s.as('editor'))
              .send({ name: 'new' })
              .expect(201)
          ).body.id,
      ),
    );
    expect(tags[1]).toBe(tags[0]);
  });
});

describe.each(ENGINES)('import-dump refusals on %s', (engine) => {
  let source: TestService;
  let file: string;
  let lines: string[];
  beforeAll(async () => {
    source = await startService(engine, HOOKS);
    await seed(source);
    file = tmpFile();
    await exportToFile(source.database.db, file);
    lines = fs.readFileSync(file, 'utf8').trimEnd().split('\n');
  }, 60_000);
  afterAll(() => source?.close());

  const intoFresh = async (text: string, work: (db: Db) => Promise<void>) => {
    const database = await freshDatabase(engine);
    try {
      await migrate(database.db);
      await work(database.db);
    } finally {
      await database.drop();
    }
    return text;
  };
  const load = (db: Db, text: string) => importDump(db, Readable.from([text]));
  const rowsIn = async (db: Db) => {
    let total = 0;
    for (const t of await dataTables(db))
      if (!MIGRATION_SEEDED_TABLES.has(t.name)) total += Number((await db(t.name).count({ n: '*' }))[0].n);
    return total;
  };

  it('refuses a database that holds data', async () => {
    await expect(load(source.database.db, lines.join('\n'))).rejects.toThrow(/not empty \(rows in .*users/);
  });

  it('refuses a dump written under migrations this build does not have', async () => {
    const header = JSON.parse(lines[0]) as DumpHeader;
    header.migrations.push('999_from_the_future');
    await intoFresh('', async (db) => {
      await expect(load(db, [JSON.stringify(header), ...lines.slice(1)].join('\n'))).rejects.toThrow(
        /newer version.*999_from_the_future/,
      );
    });
  });

  it('refuses a truncated or altered dump and leaves the database empty', async () => {
    await intoFresh('', async (db) => {
      await expect(load(db, lines.slice(0, -1).join('\n'))).rejects.toThrow(/truncated/);
      expect(await rowsIn(db)).toBe(0);
      const altered = lines.map((l) => l.replace('Harbour Hall', 'Harbour Hull'));
      await expect(load(db, altered.join('\n'))).rejects.toThrow(DumpError);
      expect(await rowsIn(db)).toBe(0);
      await expect(load(db, 'hello\n')).rejects.toThrow(/not a calendar-dump/);
    });
  });

  it('dumps every table of the catalogue but the bookkeeping and transient ones', async () => {
    const header = JSON.parse(lines[0]) as DumpHeader;
    const catalogue = (await listTables(source.database.db)).map((t) => t.name).filter((n) => !SKIPPED_TABLES.has(n));
    expect(header.tables.map((t) => t.name).sort()).toEqual(catalogue.sort());
    expect(catalogue.length).toBeGreaterThanOrEqual(11);
    // each table after the tables it references
    const position = new Map(header.tables.map((t, i) => [t.name, i]));
    for (const table of await listTables(source.database.db)) {
      for (const ref of table.references)
        if (position.has(table.name)) expect(position.get(ref)).toBeLessThan(position.get(table.name) as number);
    }
  });
});

/** A table a later migration adds (here: made by the test) is dumped and loaded without code for it. */
async function addLaterTable(db: Db): Promise<void> {
  await db.schema.createTable('later_notes', (t) => {
    t.increments('id');
    t.integer('post_id').notNullable().references('id').inTable('posts').onDelete('CASCADE');
    t.integer('reply_to').nullable().references('id').inTable('later_notes');
    t.boolean('pinned').notNullable().defaultTo(false);
    t.json('payload').nullable();
    t.double('score').nullable();
    t.bigInteger('big').nullable();
    t.binary('blob').nullable();
    t.text('note').notNullable();
  });
  await db.schema.createTable('later_keys', (t) => {
    t.string('key', 100).primary();
    t.text('value').notNullable();
  });
}

describe.each(PAIRS)('a table added later, from %s into %s', (from, to) => {
  it('is dumped, loaded, and checksummed like the others', async () => {
    const source = await startService(from);
    const file = tmpFile();
    let target: TestService | undefined;
    try {
      await addLaterTable(source.database.db);
      const event = (
        await http(source)
          .post(`${NS}/events`)
          .auth(...source.as('editor'))
          .send({ title: 'Noted', start_date: '2027-07-01 10:00:00', end_date: '2027-07-01 11:00:00' })
          .expect(201)
      ).body;
      const db = source.database.db;
      // a reply whose id is lower than the note it answers: rows of one table pointing at each other
      await db('later_notes').insert({
        id: 2,
        post_id: event.id,
        pinned: true,
        payload: JSON.stringify({ b: 1, a: [true, null] }),
        score: 0.1,
        big: 9007199254740991,
        blob: Buffer.from([0, 255, 7]),
        note: 'first',
      });
      await db('later_notes').insert({ id: 1, post_id: event.id, reply_to: 2, note: 'Ω reply' });
      await db('later_keys').insert([
        { key: 'b', value: '2' },
        { key: 'B', value: '1' },
        { key: 'a-z', value: '3' },
        { key: 'ä', value: '4' },
      ]);
      // more rows than one batch and one insert statement hold
      for (let start = 0; start < 2_400; start += 400) {
        await db('later_keys').insert(
          Array.from({ length: 400 }, (_, i) => ({ key: `k${String(start + i).padStart(5, '0')}`, value: 'v' })),
        );
      }
      await exportToFile(db, file);
      const header = JSON.parse(fs.readFileSync(file, 'utf8').split('\n')[0]) as DumpHeader;
      expect(header.tables.find((t) => t.name === 'later_notes')).toMatchObject({ rows: 2, key: ['id'] });
      expect(header.tables.map((t) => t.name).indexOf('later_notes')).toBeGreaterThan(
        header.tables.map((t) => t.name).indexOf('posts'),
      );

      target = await startService(to, {}, undefined, {
        createUsers: false,
        prepare: async (tdb) => {
          await addLaterTable(tdb);
          await importDump(tdb, fs.createReadStream(file));
        },
      });
      const notes = await target.database.db('later_notes').orderBy('id');
      expect(
        notes.map((n) => [
          n.id,
          n.reply_to,
          Boolean(n.pinned),
          n.note,
          Number(n.big),
          Buffer.from(n.blob ?? []).toString('hex'),
        ]),
      ).toEqual([
        [1, 2, false, 'Ω reply', 0, ''],
        [2, null, true, 'first', 9007199254740991, '00ff07'],
      ]);
      const keys = (await target.database.db('later_keys').select('key')).map((r) => r.key);
      expect(keys.length).toBe(2_404);
      expect(keys.filter((k) => !/^k\d{5}$/.test(k)).sort()).toEqual(['B', 'a-z', 'b', 'ä']);
      const [next] = await target.database
        .db('later_notes')
        .insert({ post_id: event.id, note: 'after' })
        .returning('id');
      expect(Number(next.id)).toBe(3);
    } finally {
      await source.close();
      await target?.close();
    }
  }, 60_000);
});

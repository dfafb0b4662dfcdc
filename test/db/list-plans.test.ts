/**
 * Every list query shape reads through an index, never a full scan of events or posts, on both engines: the plans
 * of `GET /events` (each filter), `GET /venues` and `GET /organizers`, page, walk and count, and the publishing job's
 * look-ups of scheduled posts, on bench data with fresh statistics. PostgreSQL plans without sequential scans, hash or
 * merge joins (at this size it would rightly prefer them), so a scan of a whole table or index shows only where no
 * index can serve the query. A common word's pages, found among the list's members, are those the query pages.
 */
import type { Knex } from 'knex';
import { ENGINES, freshDatabase, type TestDatabase } from '../support/engines';
import { TEST_NOW } from '../support/app';
import { seed, type Fixture } from '../../bench/seed';
import { isPostgres } from '../../src/db/dialect';
import type { Executor } from '../../src/db/types';
import { countQueries } from '../support/query-count';
import {
  countedFromSets,
  listEvents,
  listQueries,
  venueIdsNear,
  type EventFilters,
} from '../../src/resources/events/repository';
import { linkedListQueries } from '../../src/resources/linked/repository';
import { ORGANIZERS, VENUES } from '../../src/resources/linked/kinds';
import { fewMatches, prepareSearch, type SearchQuery } from '../../src/search/predicate';
import { unlockedRule } from '../../src/resources/events/access';
import { dueQuery, scheduledQuery } from '../../src/publishing/repository';
import { SCHEDULED_KINDS } from '../../src/publishing/publish';
import { whereLinkedReadable } from '../../src/resources/posts/rules';

const BIG_TABLES = ['events', 'posts'];
const ALL = ['publish', 'future', 'draft', 'pending', 'private'];
/** Partial indexes of the few protected posts and translations: reading one whole reads those few rows only. */
const FEW_ROWS = ['posts_protected', 'search_docs_translated'];

/** SQLite: `SCAN e` (a table or a whole index) of a big table. */
async function sqliteScans(
  db: Executor,
  query: Knex.QueryBuilder,
  big: string[],
): Promise<{ plan: string; scans: string[] }> {
  const { sql, bindings } = query.toSQL();
  const rows: Array<{ detail: string }> = await db.raw(`explain query plan ${sql}`, bindings);
  const aliases = new Map([
    ['e', 'events'],
    ['p', 'posts'],
    ['e2', 'events'],
    ['p_e2', 'posts'],
    ['pw', 'posts'],
    ['events', 'events'],
    ['posts', 'posts'],
  ]);
  const scans = rows
    .map((r) => r.detail)
    .filter((d) => /^SCAN (\w+)/.test(d) && big.includes(aliases.get(/^SCAN (\w+)/.exec(d)![1]) ?? ''))
    .filter((d) => !FEW_ROWS.some((index) => d.includes(` INDEX ${index}`)));
  return { plan: rows.map((r) => r.detail).join('\n'), scans };
}

interface PlanNode {
  'Node Type': string;
  'Relation Name'?: string;
  'Index Cond'?: string;
  'Index Name'?: string;
  Plans?: PlanNode[];
}

/** PostgreSQL: a sequential scan of a big table, or an index scan of it with no condition (the whole index). */
async function postgresScans(
  db: Executor,
  query: Knex.QueryBuilder,
  big: string[],
): Promise<{ plan: string; scans: string[] }> {
  const { sql, bindings } = query.toSQL().toNative();
  return (db as Knex).transaction(async (trx) => {
    // only nested loops over index look-ups remain possible, so a whole-table read shows wherever no index serves
    for (const setting of ['enable_seqscan', 'enable_hashjoin', 'enable_mergejoin'])
      await trx.raw(`set local ${setting} = off`);
    const { rows } = await trx.raw(`explain (format json) ${sql.replace(/\$(\d+)/g, '?')}`, bindings);
    const scans: string[] = [];
    const walk = (node: PlanNode) => {
      const table = node['Relation Name'];
      if (table && big.includes(table)) {
        if (node['Node Type'] === 'Seq Scan') scans.push(`Seq Scan on ${table}`);
        const few = FEW_ROWS.includes(node['Index Name'] ?? '');
        if (/Index (Only )?Scan/.test(node['Node Type']) && !node['Index Cond'] && !few)
          scans.push(`${node['Node Type']} of all ${table}`);
      }
      for (const child of node.Plans ?? []) walk(child);
    };
    walk(rows[0]['QUERY PLAN'][0].Plan);
    return { plan: JSON.stringify(rows[0]['QUERY PLAN'][0].Plan), scans };
  });
}

describe.each(ENGINES)('list query plans on %s', (engine) => {
  let database: TestDatabase;
  let fixture: Fixture;
  beforeAll(async () => {
    database = await freshDatabase(engine);
    fixture = await seed(database.db, { events: 20_000, progress: false, analyze: true, now: Date.parse(TEST_NOW) });
  }, 120_000);
  afterAll(() => database.drop());

  const scans = (query: Knex.QueryBuilder, big = BIG_TABLES) =>
    (isPostgres(database.db) ? postgresScans : sqliteScans)(database.db, query, big);
  // a search applied as its matching documents (as when it matches more than a thousand events), not as their ids
  const withoutIds = (search: SearchQuery | undefined) => search && { ...search, ids: undefined };
  const anonymousVenues = (query: Knex.QueryBuilder, posts: string) =>
    whereLinkedReadable(query, undefined, 'venues', posts);
  const window = { statuses: ['publish'], startFrom: '2027-06-14 00:00:00', endTo: '2029-06-15 23:59:59' };
  // a match set past FEW_MATCHES, as a common word has at a million events
  const manyMatches = async () => {
    const search = (await prepareSearch(database.db, 'event', fixture.searchWord, 'en')) as SearchQuery;
    return { ...search, ids: Int32Array.from({ length: 5_000 }, (_, i) => fixture.eventIds[0] + 3 * i) };
  };

  const shapes: Array<[string, () => Promise<EventFilters>]> = [
    ['default window', async () => window],
    [
      'every status (editors)',
      async () => ({ ...window, statuses: ['publish', 'future', 'draft', 'pending', 'private'] }),
    ],
    ['category', async () => ({ ...window, categoryIds: [fixture.categoryId, 11, 21, 31, 41] })],
    ['tag', async () => ({ ...window, tagIds: [51] })],
    ['venue', async () => ({ ...window, venueIds: [fixture.venueIds[3]] })],
    ['organizer', async () => ({ ...window, organizerIds: [fixture.organizerIds[2]] })],
    [
      'geolocation',
      async () => ({ ...window, venueIds: await venueIdsNear(database.db, { ...fixture.geoCenter, radiusKm: 25 }) }),
    ],
    [
      'geolocation, through the venues an anonymous caller may read',
      async () => ({
        ...window,
        venueIds: await venueIdsNear(database.db, { ...fixture.geoCenter, radiusKm: 25 }, anonymousVenues),
      }),
    ],
    [
      'geoloc (a readable venue with coordinates)',
      async () => ({ ...window, geolocated: true, readableVenues: anonymousVenues }),
    ],
    ['featured', async () => ({ ...window, featured: true })],
    [
      'search',
      async () => ({ ...window, search: await prepareSearch(database.db, 'event', fixture.searchWord, 'en') }),
    ],
    [
      'search by a caller who may not read protected text',
      async () => ({
        ...window,
        search: await prepareSearch(database.db, 'event', fixture.searchWord, 'en', unlockedRule(undefined, undefined)),
      }),
    ],
    [
      'search by a caller who may not read protected text, as a subquery',
      async () => ({
        ...window,
        search: withoutIds(
          await prepareSearch(database.db, 'event', fixture.searchWord, 'en', unlockedRule(undefined, undefined)),
        ),
      }),
    ],
    [
      'search matching more events than a list of ids takes (one bound set)',
      async () => ({ ...window, search: await manyMatches() }),
    ],
    [
      'category and a search matching many events (one bound set)',
      async () => ({ ...window, categoryIds: [fixture.categoryId], search: await manyMatches() }),
    ],
    [
      'category and search',
      async () => ({
        ...window,
        categoryIds: [fixture.categoryId],
        search: await prepareSearch(database.db, 'event', fixture.searchWord, 'en'),
      }),
    ],
    ['starts after', async () => ({ statuses: ['publish'], startsAfter: '2028-01-01 00:00:00' })],
    ['collapse_recurring', async () => ({ ...window, collapseRecurring: true })],
    [
      'collapse_recurring, category and venue',
      async () => ({
        ...window,
        collapseRecurring: true,
        categoryIds: [fixture.categoryId],
        venueIds: [fixture.venueIds[3]],
      }),
    ],
  ];

  it.each(shapes)('GET /events by %s reads no table whole', async (_name, filters) => {
    const f = await filters();
    const { page, walk, count, ids, among } = listQueries(database.db, f);
    const fromLinks = listQueries(database.db, f, true); // categories and tags found from their links
    const counted = [ids(), fromLinks.ids(), among(fixture.eventIds.slice(0, 20))]; // a set counted, or patched
    for (const query of [page().limit(15), walk().limit(256), count(), fromLinks.count(), ...counted]) {
      const { plan, scans: found } = await scans(query);
      expect({ found, plan }).toEqual({ found: [], plan });
    }
  });

  it('counts the same events of a category and a common word whichever drives, the window or the links', async () => {
    const f: EventFilters = { ...window, categoryIds: [fixture.categoryId], search: await manyMatches() };
    const ids = async (query: Knex.QueryBuilder) =>
      ((await query) as Array<{ id: unknown }>).map((row) => Number(row.id)).sort((a, b) => a - b);
    const byWindow = await ids(listQueries(database.db, f).ids());
    expect(byWindow.length).toBeGreaterThan(10);
    expect(await ids(listQueries(database.db, f, true).ids())).toEqual(byWindow);
  });

  it('counts the events of a category from sets as the query does', async () => {
    const f: EventFilters = { ...window, categoryIds: [1, 11], tagIds: [51] };
    const counted = Array.from(await countedFromSets(database.db, f));
    const queried = ((await listQueries(database.db, f).ids()) as Array<{ id: unknown }>).map((row) => Number(row.id));
    expect(queried.length).toBeGreaterThan(0);
    expect(counted).toEqual(queried.sort((a, b) => a - b));
  });

  it.each([
    ['a common word', {}],
    ['a common word and a category', { categoryIds: [1, 11] }],
    ['a common word, a category and a tag, every status', { categoryIds: [1], tagIds: [51, 52], statuses: ALL }],
  ])('counts the events of %s from sets as the query does', async (_name, narrower) => {
    const search = (await prepareSearch(database.db, 'event', fixture.searchWord, 'en')) as SearchQuery;
    const f: EventFilters = { ...window, ...narrower, search };
    const counted = Array.from(await countedFromSets(database.db, f, search.ids as Int32Array));
    const queried = ((await listQueries(database.db, f).ids()) as Array<{ id: unknown }>).map((row) => Number(row.id));
    expect(queried.length).toBeGreaterThan(0);
    expect(counted).toEqual(queried.sort((a, b) => a - b));
  });

  it("counts a common word or a window alone, never asked before, from the events' times", async () => {
    const search = (await prepareSearch(database.db, 'event', fixture.searchWord, 'en')) as SearchQuery;
    await countedFromSets(database.db, { ...window, search }, search.ids as Int32Array); // the times read once
    const windows: Array<Partial<EventFilters>> = [
      { endTo: '2028-03-01 12:00:00' },
      { startFrom: undefined, endsAfter: '2028-01-01 00:00:00', startsBefore: '2028-06-01 00:00:00' },
      { startFrom: undefined, endTo: undefined }, // no window: every event kept
      { startsAfter: '2027-09-01 10:00:00', endsBefore: '2029-01-01 00:00:00', statuses: ALL },
    ];
    const queried = async (f: EventFilters) =>
      ((await listQueries(database.db, f).ids()) as Array<{ id: unknown }>).map((r) => Number(r.id));
    for (const bounds of windows) {
      const f: EventFilters = { ...window, ...bounds, search };
      let counted: ArrayLike<number> = [];
      let total = 0;
      const { sql } = await countQueries(async () => {
        counted = await countedFromSets(database.db, f, search.ids as Int32Array);
        total = (await listEvents(database.db, { ...f, search: undefined }, 5, 0)).total;
      });
      const ids = await queried(f);
      expect(ids.length).toBeGreaterThan(10);
      expect(Array.from(counted)).toEqual(ids.sort((a, b) => a - b));
      expect(total).toBe((await queried({ ...f, search: undefined })).length);
      const read = sql.filter((text) => /group_concat\(|string_agg\(/i.test(text));
      if (!bounds.statuses) expect(read).toEqual([]); // another class of caller reads its own times once
    }
  });

  /** `listEvents`'s page and total, which must be the query's; the statements it ran. */
  async function pagedAsQueried(f: EventFilters, limit: number, offset: number, total: number) {
    const ids = (rows: Array<{ id: unknown }>) => rows.map((row) => Number(row.id));
    let listed = { rows: [] as Array<{ id: unknown }>, total: 0 };
    const { sql } = await countQueries(async () => {
      listed = await listEvents(database.db, f, limit, offset);
    });
    const paged = await listQueries(database.db, f).page().limit(limit).offset(offset);
    expect({ limit, offset, ids: ids(listed.rows), total: listed.total }).toEqual({
      limit,
      offset,
      ids: ids(paged),
      total,
    });
    return sql;
  }

  // many members: a page near the start read by id from their times, a deep one by walking the window in list
  // order; few members are looked up by id, those their times say may be the page's
  it.each([
    ['a word every event has (many members)', 'doors', {}, 'many'],
    [
      'a word every event has, in common categories, at any date (many members)',
      'doors',
      { statuses: ALL, categoryIds: [1, 2, 3], startFrom: '2000-01-01 00:00:00', endTo: '2100-12-31 23:59:59' },
      'many',
    ],
    ['a word every event has, in a category (looked up)', 'doors', { categoryIds: [5] }, 'few'],
    ['a word every event has, every status, in a tag (looked up)', 'doors', { statuses: ALL, tagIds: [51] }, 'few'],
  ])(
    'pages a search for %s from its members as the query pages it, binding no set',
    async (_n, word, narrower, members) => {
      const search = (await prepareSearch(database.db, 'event', word, 'en')) as SearchQuery;
      expect(fewMatches(search.ids as Int32Array)).toBe(false);
      const f: EventFilters = { ...window, ...narrower, search };
      const [{ total }] = (await listQueries(database.db, f).count()) as Array<{ total: unknown }>;
      expect(fewMatches({ length: Number(total) })).toBe(members === 'few');
      const pages = [
        [10, 0],
        [50, 0],
        [10, 130],
        [25, Number(total) - 20],
        [10, Number(total) + 5],
      ];
      for (const [limit, offset] of pages) {
        const sql = await pagedAsQueried(f, limit, offset, Number(total));
        expect(sql.filter((text) => /json_each|string_to_array/.test(text))).toEqual([]);
        // a page near the start is read by id from the members' times, the window not walked
        const walked = sql.filter((text) => /^select [`"]e[`"]\.[`"]post_id[`"] as [`"]id[`"] from/.test(text));
        if (offset + limit <= 1000) expect(walked).toEqual([]);
        // and few members are narrowed by their times too: the page binds those that may be its own, not them all
        const bound = sql.filter((text) => /[`"]e[`"]\.[`"]post_id[`"] in \(/.test(text));
        const placeholders = bound.map((text) => text.match(/\?|\$\d+/g)?.length ?? 0);
        if (offset + limit < Number(total) / 2) expect(Math.max(0, ...placeholders)).toBeLessThan(Number(total) / 2);
      }
    },
  );

  // the events near a point, or of a venue or organizer: the members counted for the total tell the page by their
  // times; for a caller who reads only some events (no times held), few members are looked up by id
  it.each([
    ['the venues near a point', 'near', 'times'],
    ['the venues near a point, every status', 'near everything', 'times'],
    ['a venue', 'venue', 'times'],
    ['an organizer', 'organizer', 'times'],
    ['the venues near a point, for an author', 'near, readable', 'members'],
  ] as const)('pages the events of %s from its members as the query pages it', async (_n, shape, found) => {
    const anyDate = { ...window, startFrom: '2000-01-01 00:00:00', endTo: '2100-12-31 23:59:59' };
    const near = async () => venueIdsNear(database.db, { ...fixture.geoCenter, radiusKm: 25 });
    const narrower: Record<typeof shape, () => Promise<Partial<EventFilters>>> = {
      near: async () => ({ venueIds: await near() }),
      'near everything': async () => ({ venueIds: await near(), statuses: ALL }),
      venue: async () => ({ venueIds: [fixture.venueIds[3]] }),
      organizer: async () => ({ organizerIds: [fixture.organizerIds[2]] }),
      'near, readable': async () => ({ venueIds: await near(), readable: (q) => q.where('p.author_id', '>', 0) }),
    };
    const f: EventFilters = { ...anyDate, ...(await narrower[shape]()) };
    const [{ total }] = (await listQueries(database.db, f).count()) as Array<{ total: unknown }>;
    expect(Number(total)).toBeGreaterThan(60);
    for (const [limit, offset] of [
      [10, 0],
      [50, 0],
      [10, 40],
      [25, Number(total) - 20],
      [10, Number(total) + 5],
    ]) {
      const sql = await pagedAsQueried(f, limit, offset, Number(total));
      // the page is read by id, not found by testing the window's events: from the times, the ids that may be its
      // own; without them, its few members
      if (offset >= Number(total)) continue;
      const byIds = sql.filter((text) => /[`"]e[`"]\.[`"]post_id[`"] in \((\?|\$)/.test(text) && /limit/i.test(text));
      const placeholders = byIds.map((text) => text.match(/\?|\$\d+/g)?.length ?? 0);
      expect(byIds).toHaveLength(1);
      if (found === 'times' && offset + limit < Number(total) / 2)
        expect(placeholders[0]).toBeLessThan(Number(total) / 2);
      if (found === 'members') expect(placeholders[0]).toBeGreaterThan(Number(total));
    }
  });

  it.each([
    ['venues', VENUES],
    ['organizers', ORGANIZERS],
  ] as const)('GET /%s reads no table whole', async (_name, kind) => {
    const { page, count } = linkedListQueries(database.db, kind, { statuses: ['publish'] });
    for (const query of [page().limit(10), count()]) {
      const { plan, scans: found } = await scans(query);
      expect({ found, plan }).toEqual({ found: [], plan });
    }
  });

  it.each(SCHEDULED_KINDS)(
    'finds the scheduled posts of kind %s (due, and the next date) through an index',
    async (kind) => {
      for (const query of [
        dueQuery(database.db, kind, '2027-06-15 12:00:00', 100),
        scheduledQuery(database.db, kind),
      ]) {
        const { plan, scans: found } = await scans(query.clone().limit(1));
        expect({ found, plan }).toEqual({ found: [], plan });
      }
    },
  );

  it('finds the venues near a point through the spatial index', async () => {
    const near = await venueIdsNear(database.db, { ...fixture.geoCenter, radiusKm: 25 });
    expect(near.length).toBeGreaterThan(0);
    const all: Array<{ post_id: number; geo_lat: number; geo_lng: number }> = await database
      .db('venues')
      .select('post_id', 'geo_lat', 'geo_lng');
    const rad = (x: number) => (x * Math.PI) / 180;
    const distance = (v: { geo_lat: number; geo_lng: number }) =>
      2 *
      6371 *
      Math.asin(
        Math.sqrt(
          Math.sin(rad(v.geo_lat - fixture.geoCenter.lat) / 2) ** 2 +
            Math.cos(rad(fixture.geoCenter.lat)) *
              Math.cos(rad(v.geo_lat)) *
              Math.sin(rad(v.geo_lng - fixture.geoCenter.lng) / 2) ** 2,
        ),
      );
    const expected = all.filter((v) => distance(v) <= 25 - 1e-6).map((v) => Number(v.post_id));
    expect(near).toEqual(expect.arrayContaining(expected));
    expect(near.every((id) => distance(all.find((v) => Number(v.post_id) === id)!) <= 25 + 1e-6)).toBe(true);
  });
});

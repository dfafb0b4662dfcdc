/**
 * Seeds a migrated database with N events and the venues, organizers, categories and tags spread over them, writing
 * rows directly (no HTTP) in batched transactions. Ids are allocated here, in order, so one batch needs no
 * round trip to learn them; on PostgreSQL the sequences are moved past them afterwards so API inserts still work.
 * Deterministic: the same N gives the same data (dates relative to now).
 */
import { refreshCounts } from '../src/core/term-counts';
import { rebuildSearchIndex } from '../src/search/documents';
import { SingleBar, Presets } from 'cli-progress';
import type { Knex } from 'knex';
import type { Db } from '../src/db/types';
import { isPostgres } from '../src/db/dialect';
import { migrate } from '../src/db/migrate';
import { createUser } from '../src/users/repository';

export const ADMIN = { login: 'bench', password: 'bench-password' };
/** The administrator's HTTP Basic `Authorization`, as every authenticated bench request sends it. */
export const ADMIN_AUTH = `Basic ${Buffer.from(`${ADMIN.login}:${ADMIN.password}`).toString('base64')}`;
/** Series in the data: SERIES_LENGTH events in a row out of every SERIES_EVERY (10 %) are the occurrences of one. */
const SERIES_EVERY = 100;
const SERIES_LENGTH = 10;

export interface SeedOptions {
  events: number;
  /** Events per transaction. */
  batch?: number;
  /**
   * SQLite: run a full ANALYZE afterwards. Off by default: statistics are the service's business (a bounded
   * `PRAGMA optimize` when it connects), as on a real database. PostgreSQL is always analysed, as autovacuum would.
   */
  analyze?: boolean;
  /** The instant the data is spread around (default: now). */
  now?: number;
  /** Put 10 % of the events in recurring series (default true; `BENCH_SERIES=0` in run.ts: none). */
  series?: boolean;
  /** Show a progress bar on stderr (default true; a line every 10 s when stderr is not a terminal). */
  progress?: boolean;
}

/** What the scenarios need to know about the seeded data. */
export interface Fixture {
  events: number;
  categoryId: number;
  /** A word in ~5 % of event titles (never in contents). */
  searchWord: string;
  /** A word in one event title in 5 000 (0.02 %). */
  rareWord: string;
  /** Published, listed events starting within the next year: ids for the single-read scenario. */
  eventIds: number[];
  /** Those of `eventIds` outside any recurring series: what the `mix` scenario's updates change. */
  standaloneEventIds: number[];
  venueIds: number[];
  organizerIds: number[];
  /** A city with ~1/12 of the venues around it (±0.5°), for geolocation scenarios. */
  geoCenter: { lat: number; lng: number };
  seedSeconds: number;
}

export const ADJECTIVES = [
  'Summer',
  'Winter',
  'Late',
  'Open',
  'Grand',
  'Little',
  'Annual',
  'Free',
  'Family',
  'Midnight',
  'Spring',
  'Autumn',
  'Community',
  'Classic',
  'Modern',
  'Outdoor',
  'Evening',
  'Morning',
  'Weekly',
  'Special',
];
export const NOUNS = [
  'Jazz',
  'Market',
  'Festival',
  'Workshop',
  'Concert',
  'Lecture',
  'Meetup',
  'Fair',
  'Screening',
  'Tour',
  'Exhibition',
  'Race',
  'Party',
  'Dinner',
  'Reading',
  'Class',
  'Show',
  'Gala',
  'Conference',
  'Walk',
];
const TOP_CATEGORIES = ['Music', 'Sports', 'Arts', 'Food', 'Business', 'Family', 'Film', 'Tech', 'Health', 'Outdoors'];
export const CITIES: Array<[string, string, number, number]> = [
  ['Amsterdam', 'Netherlands', 52.37, 4.9],
  ['Berlin', 'Germany', 52.52, 13.4],
  ['Paris', 'France', 48.86, 2.35],
  ['Madrid', 'Spain', 40.42, -3.7],
  ['Rome', 'Italy', 41.9, 12.5],
  ['Vienna', 'Austria', 48.21, 16.37],
  ['Warsaw', 'Poland', 52.23, 21.01],
  ['Stockholm', 'Sweden', 59.33, 18.07],
  ['Oslo', 'Norway', 59.91, 10.75],
  ['Lisbon', 'Portugal', 38.72, -9.14],
  ['Prague', 'Czechia', 50.08, 14.44],
  ['Brussels', 'Belgium', 50.85, 4.35],
];
const RARE_WORD = 'Zeppelin';
const CATEGORY_COUNT = 50;
const TAG_COUNT = 200;
const YEAR_MS = 365.25 * 24 * 3600 * 1000;

/** mulberry32: a small seeded generator, so runs are comparable. */
export function random(seed: number): () => number {
  return () => {
    seed = (seed + 0x6d2b79f5) | 0;
    let t = Math.imul(seed ^ (seed >>> 15), 1 | seed);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

const utc = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

type Row = Array<string | number | boolean | null>;

/**
 * SQLite: multi-row INSERTs of at most ~30 000 bound values each (the limit is 32 766), as plain SQL: Knex's query
 * builder costs more than the database itself on millions of rows.
 */
async function insert(trx: Knex.Transaction, table: string, columns: string[], rows: Row[]): Promise<void> {
  if (isPostgres(trx)) return insertArrays(trx, table, columns, rows);
  const perStatement = Math.floor(30_000 / columns.length);
  const tuple = `(${columns.map(() => '?').join(',')})`;
  for (let at = 0; at < rows.length; at += perStatement) {
    const chunk = rows.slice(at, at + perStatement);
    const sql = `insert into ${table} (${columns.join(',')}) values ${Array(chunk.length).fill(tuple).join(',')}`;
    await trx.raw(sql, chunk.flat());
  }
}

/** PostgreSQL: one statement per batch, a column per array parameter (`unnest`), so there is little to parse. */
const columnTypes = new Map<string, Map<string, string>>();
async function insertArrays(trx: Knex.Transaction, table: string, columns: string[], rows: Row[]): Promise<void> {
  let types = columnTypes.get(table);
  if (!types) {
    const result = await trx.raw(
      'select attname, format_type(atttypid, atttypmod) as type from pg_attribute where attrelid = ?::regclass and attnum > 0',
      [table],
    );
    types = new Map((result.rows as Array<{ attname: string; type: string }>).map((r) => [r.attname, r.type]));
    columnTypes.set(table, types);
  }
  const casts = columns.map((column) => `?::${types.get(column)}[]`).join(',');
  const arrays = columns.map((_, c) => rows.map((row) => row[c])) as unknown as Knex.Value[]; // with nulls: Knex's types allow none
  await trx.raw(`insert into ${table} (${columns.join(',')}) select * from unnest(${casts})`, arrays);
}

const POST_COLUMNS = [
  'id',
  'type',
  'status',
  'author_id',
  'slug',
  'language',
  'title',
  'content',
  'excerpt',
  'password',
  'date_utc',
  'modified_utc',
];
const EVENT_COLUMNS = [
  'post_id',
  'status',
  'start_local',
  'end_local',
  'start_utc',
  'end_utc',
  'timezone',
  'all_day',
  'cost',
  'currency_symbol',
  'currency_position',
  'website',
  'show_map',
  'show_map_link',
  'hide_from_listings',
  'sticky',
  'featured',
  'venue_id',
  'post_parent',
  'image_id',
];

export async function seed(db: Db, options: SeedOptions): Promise<Fixture> {
  const started = Date.now();
  const n = options.events;
  const batch = options.batch ?? 5_000;
  const pg = isPostgres(db);
  const bool = (value: boolean) => (pg ? value : Number(value)); // better-sqlite3 binds no booleans
  const rand = random(n);
  const now = options.now ?? Date.now();

  await migrate(db);
  if (!pg) {
    // this connection only (the pool holds one): a crash while seeding just means seeding again
    await db.raw('pragma synchronous = off');
    await db.raw('pragma cache_size = -262144'); // 256 MiB: index pages stay cached while rows arrive out of order
  }
  const admin = await createUser(db, ADMIN.login, 'administrator', ADMIN.password);
  const author = Number(admin.id);

  // terms: 10 top-level categories with 4 children each, then the tags
  const terms: Row[] = [];
  for (let i = 1; i <= CATEGORY_COUNT; i++) {
    const top = i <= TOP_CATEGORIES.length;
    const parent = top ? 0 : ((i - 1) % TOP_CATEGORIES.length) + 1;
    const name = top ? TOP_CATEGORIES[i - 1] : `${TOP_CATEGORIES[parent - 1]} ${Math.ceil(i / TOP_CATEGORIES.length)}`;
    terms.push([i, 'tribe_events_cat', name, name.toLowerCase().replace(' ', '-'), '', parent, 'en']);
  }
  for (let i = 1; i <= TAG_COUNT; i++)
    terms.push([CATEGORY_COUNT + i, 'post_tag', `Tag ${i}`, `tag-${i}`, '', 0, 'en']);

  // venues and organizers first: they take the lowest post ids
  const venueCount = Math.max(20, Math.round(n / 100));
  const organizerCount = Math.max(10, Math.round(n / 200));
  const posts: Row[] = [];
  const venues: Row[] = [];
  const organizers: Row[] = [];
  const created = utc(now - YEAR_MS);
  let id = 0;
  for (let v = 1; v <= venueCount; v++) {
    const [city, country, lat, lng] = CITIES[v % CITIES.length];
    posts.push([++id, 'venue', 'publish', author, `venue-${v}`, 'en', `Venue ${v}`, '', '', '', created, created]);
    venues.push([
      id,
      `${v} Main Street`,
      city,
      country,
      '',
      '',
      `${1000 + v}`,
      '',
      '',
      '',
      bool(true),
      bool(true),
      lat + (rand() - 0.5),
      lng + (rand() - 0.5),
      null,
    ]);
  }
  for (let o = 1; o <= organizerCount; o++) {
    posts.push([
      ++id,
      'organizer',
      'publish',
      author,
      `organizer-${o}`,
      'en',
      `Organizer ${o}`,
      '',
      '',
      '',
      created,
      created,
    ]);
    organizers.push([id, '+31 20 555 0000', `https://organizer-${o}.example`, `info@organizer-${o}.example`, null]);
  }
  const firstVenue = 1;
  const firstOrganizer = venueCount + 1;
  await db.transaction(async (trx) => {
    await insert(trx, 'terms', ['id', 'taxonomy', 'name', 'slug', 'description', 'parent', 'language'], terms);
    await insert(trx, 'posts', POST_COLUMNS, posts);
    await insert(
      trx,
      'venues',
      [
        'post_id',
        'address',
        'city',
        'country',
        'province',
        'state',
        'zip',
        'phone',
        'stateprovince',
        'website',
        'show_map',
        'show_map_link',
        'geo_lat',
        'geo_lng',
        'image_id',
      ],
      venues,
    );
    await insert(trx, 'organizers', ['post_id', 'phone', 'website', 'email', 'image_id'], organizers);
  });

  // events: starts spread evenly over [now - 10 y, now + 10 y], visited in a scrambled order so that id and start
  // are unrelated (as when events are entered over time), and neither index sees only appends
  const from = now - 10 * YEAR_MS;
  const step = (20 * YEAR_MS) / n;
  const windowEnd = now + YEAR_MS;
  const eventIds: number[] = [];
  const standaloneEventIds: number[] = [];
  const bar = new SingleBar(
    {
      format: 'seeding {bar} {value}/{total} events | {eta_formatted} left',
      etaBuffer: 20,
      noTTYOutput: true,
      notTTYSchedule: 10_000,
    },
    Presets.shades_classic,
  );
  if (options.progress ?? true) bar.start(n, 0);
  for (let done = 0; done < n; done += batch) {
    const eventPosts: Row[] = [];
    const events: Row[] = [];
    const links: Row[] = [];
    const eventOrganizers: Row[] = [];
    const series: Row[] = [];
    const occurrences: Row[] = [];
    for (let i = done; i < Math.min(n, done + batch); i++) {
      const postId = ++id;
      // 10 % of events belong to a series: ten in a row out of every hundred, the first of them the series event
      const inSeries = (options.series ?? true) && i % SERIES_EVERY < SERIES_LENGTH;
      const head = postId - (i % SERIES_EVERY);
      const start = from + ((i * 2654435761) % n) * step; // multiplier coprime with n: a permutation of 0..n-1
      const startMs = Math.floor(start / 900_000) * 900_000; // quarter hours
      const endMs = startMs + (1 + Math.floor(rand() * 4)) * 3600_000;
      const roll = rand();
      const status = roll < 0.94 ? 'publish' : roll < 0.97 ? 'draft' : 'private';
      const hidden = rand() < 0.01;
      const adjective = ADJECTIVES[Math.floor(rand() * ADJECTIVES.length)];
      const title = `${i % 5000 === 17 ? RARE_WORD : adjective} ${NOUNS[Math.floor(rand() * NOUNS.length)]}`;
      const published = utc(Math.min(startMs - 30 * 24 * 3600_000, now));
      const [startText, endText] = [utc(startMs), utc(endMs)];
      const paid = rand() < 0.5;
      eventPosts.push([
        postId,
        'event',
        status,
        author,
        `event-${i + 1}`,
        'en',
        title,
        `<p>Join us for this ${title.split(' ')[0].toLowerCase()} event. Doors open half an hour before the start.</p>`,
        '',
        '',
        published,
        published,
      ]);
      events.push([
        postId,
        status,
        startText,
        endText,
        startText,
        endText,
        'UTC',
        bool(false),
        paid ? '["15$"]' : null,
        paid ? '$' : '',
        paid ? 'postfix' : '',
        null,
        bool(true),
        bool(true),
        bool(hidden),
        bool(rand() < 0.01),
        bool(rand() < 0.02),
        rand() < 0.8 ? firstVenue + Math.floor(rand() * venueCount) : null,
        inSeries && head !== postId ? head : null,
        null,
      ]);
      if (inSeries) {
        if (head === postId) series.push([postId, `FREQ=WEEKLY;COUNT=${SERIES_LENGTH}`, '[]', '[]', bool(false), null]);
        occurrences.push([postId, head, startText, bool(false)]);
      }
      // one category, skewed (category 1 and its children get the most events), and 0-2 tags
      links.push([postId, 1 + Math.floor(CATEGORY_COUNT * rand() ** 2)]);
      const tags = Math.floor(rand() * 3);
      const firstTag = Math.floor(TAG_COUNT * rand() ** 2);
      for (let t = 0; t < tags; t++) links.push([postId, CATEGORY_COUNT + 1 + ((firstTag + t) % TAG_COUNT)]);
      const organizerCountHere = Math.floor(rand() * 3);
      const firstOrg = Math.floor(rand() * organizerCount);
      for (let o = 0; o < organizerCountHere; o++) {
        eventOrganizers.push([postId, firstOrganizer + ((firstOrg + o) % organizerCount), o]);
      }
      if (status === 'publish' && !hidden && startMs > now && startMs < windowEnd && eventIds.length < 1000) {
        eventIds.push(postId);
        if (!inSeries) standaloneEventIds.push(postId);
      }
    }
    await db.transaction(async (trx) => {
      if (pg) await trx.raw('set local synchronous_commit = off'); // as SQLite's synchronous=off: seeding is redone after a crash
      await insert(trx, 'posts', POST_COLUMNS, eventPosts);
      await insert(trx, 'events', EVENT_COLUMNS, events);
      await insert(trx, 'term_relationships', ['post_id', 'term_id'], links);
      await insert(trx, 'event_organizers', ['event_id', 'organizer_id', 'position'], eventOrganizers);
      await insert(
        trx,
        'event_series',
        ['event_id', 'rrule', 'rdates', 'exdates', 'open_ended', 'horizon_utc'],
        series,
      );
      await insert(trx, 'series_occurrences', ['event_id', 'series_id', 'original_local', 'detached'], occurrences);
    });
    bar.update(Math.min(n, done + batch));
  }
  bar.stop();

  // the rows went in directly: give every term its count of published events, as event writes keep it
  await refreshCounts(
    db,
    (await db('terms').select('id')).map((r: { id: number }) => Number(r.id)),
  );
  // and every record its search documents, as writes keep them
  await rebuildSearchIndex(db);

  if (pg) {
    // explicit ids do not move the sequences; the API's own inserts must start after them
    await db.raw(`select setval(pg_get_serial_sequence('posts', 'id'), ?)`, [id]);
    await db.raw(`select setval(pg_get_serial_sequence('terms', 'id'), ?)`, [CATEGORY_COUNT + TAG_COUNT]);
    await db.raw('vacuum analyze'); // what autovacuum would do after a bulk load: planner statistics, visibility map
  } else {
    if (options.analyze) await db.raw('analyze');
    await db.raw('pragma wal_checkpoint(truncate)'); // the server starts on a compact file
  }

  if (eventIds.length === 0) eventIds.push(id); // tiny data sets: any event will do
  if (standaloneEventIds.length === 0) standaloneEventIds.push(...eventIds);
  return {
    events: n,
    categoryId: 1,
    searchWord: 'jazz',
    rareWord: RARE_WORD.toLowerCase(),
    eventIds,
    standaloneEventIds,
    venueIds: Array.from({ length: venueCount }, (_, k) => firstVenue + k),
    organizerIds: Array.from({ length: organizerCount }, (_, k) => firstOrganizer + k),
    geoCenter: { lat: CITIES[0][2], lng: CITIES[0][3] },
    seedSeconds: (Date.now() - started) / 1000,
  };
}

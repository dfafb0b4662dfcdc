/**
 * The `mix` scenario (D105): anonymous reads of at least 2 000 distinct URLs with a Zipf-like popularity, and,
 * from an authenticated connection at the same time, one write in every `writeEvery` requests that changes what some
 * of those URLs return. Around every write, the changed record is read (in the three languages of the mix, and
 * through a filtered list) from the node that did not take the write (the same node when there is only one): before
 * it, so that a cache there holds the old answers, and after it is acknowledged, when an answer that does not show
 * the write is counted as stale. Deterministic: the URLs, their popularity, the order of the reads and every write
 * come from seeded generators. See bench/README.md and decisions D105–D106.
 */
import autocannon from 'autocannon';
import { ADJECTIVES, ADMIN_AUTH, CITIES, NOUNS, random, type Fixture } from './seed';

const NS = '/calendar/events/v1';
/** `''` is the default language (English): most clients send none. */
const LANGUAGES = ['', 'fr', 'de'] as const;
/** Words no seeded title has: title writes use them, so the searches for them change as the mix runs. */
const NEW_WORDS = ['Opera', 'Ballet', 'Yoga', 'Chess', 'Quiz', 'Poetry', 'Karaoke', 'Salsa', 'Tango'];
/** 50 searches: the seeded title words, the rare one, and the words the writes bring in. */
const SEARCH_WORDS = [...ADJECTIVES, ...NOUNS, 'Zeppelin', ...NEW_WORDS].map((word) => word.toLowerCase());
const RADII = [5, 25, 100];
/** Caps per kind, so that the 1 M data set (10 000 venues) keeps the share of each kind close to the 10 k one. */
const MAX_SINGLE_EVENTS = 1000;
const MAX_VENUES = 300;
const MAX_ORGANIZERS = 150;
const CATEGORIES = 50;
/** The Zipf exponent: the n-th most popular URL is asked 1/n^s as often as the first. */
const ZIPF_S = 1;
export const MIN_DISTINCT_URLS = 2000;

const withLanguage = (url: string, language: string) =>
  language ? `${url}${url.includes('?') ? '&' : '?'}i18n_language=${language}` : url;

/** Every URL of the mix, in a seeded order that is also their popularity rank (first = most asked). */
export function mixUrls(f: Fixture, seed = 22): string[] {
  const events = `${NS}/events`;
  const bases: string[] = [];
  for (const id of f.eventIds.slice(0, MAX_SINGLE_EVENTS)) bases.push(`${events}/${id}`);
  for (let page = 1; page <= 5; page++) bases.push(page === 1 ? events : `${events}?page=${page}`);
  for (let c = 1; c <= CATEGORIES; c++) bases.push(`${events}?categories=${c}`);
  for (const id of f.venueIds.slice(0, MAX_VENUES)) bases.push(`${events}?venue=${id}`);
  for (const id of f.organizerIds.slice(0, MAX_ORGANIZERS)) bases.push(`${events}?organizer=${id}`);
  for (const word of SEARCH_WORDS) bases.push(`${events}?search=${word}`);
  for (const [, , lat, lng] of CITIES)
    for (const radius of RADII) bases.push(`${events}?geoloc_lat=${lat}&geoloc_lng=${lng}&geoloc_radius=${radius}`);
  const urls = bases.flatMap((url) => LANGUAGES.map((language) => withLanguage(url, language)));
  // Fisher–Yates with a seeded generator: popularity is spread over every kind of URL
  const rand = random(seed);
  for (let i = urls.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [urls[i], urls[j]] = [urls[j], urls[i]];
  }
  return urls;
}

/** Draws URLs by rank with probability ∝ 1/rank^s (inverse transform over the cumulative weights). */
export class ZipfUrls {
  private readonly cumulative: Float64Array;
  private readonly rand: () => number;

  constructor(
    readonly urls: string[],
    seed = 1,
    s = ZIPF_S,
  ) {
    this.cumulative = new Float64Array(urls.length);
    let sum = 0;
    for (let rank = 0; rank < urls.length; rank++) this.cumulative[rank] = sum += 1 / (rank + 1) ** s;
    this.rand = random(seed);
  }

  next(): string {
    const target = this.rand() * this.cumulative[this.cumulative.length - 1];
    let lo = 0;
    let hi = this.cumulative.length - 1;
    while (lo < hi) {
      const mid = (lo + hi) >>> 1;
      if (this.cumulative[mid] < target) lo = mid + 1;
      else hi = mid;
    }
    return this.urls[lo];
  }
}

type WriteKind = 'title' | 'venue' | 'categories' | 'create' | 'delete';
/** The writes, in turn: every fifth write of each kind. */
const WRITE_KINDS: WriteKind[] = ['title', 'venue', 'categories', 'create', 'delete'];

export interface MixResult {
  /** Seconds from the first request to the last answer (the final write and its checks included). */
  seconds: number;
  /** Answers of every kind: reads of the mix, writes, and the reads that check them. */
  requests: number;
  reads: number;
  writes: number;
  checks: number;
  /** Every response time, ms. */
  latencies: number[];
  /** Statuses of the mix's reads and writes (the checks expect their own, below). */
  statuses: Record<string, number>;
  /** Reads or writes that answered anything but 2xx. */
  unexpected: number;
  errors: number;
  timeouts: number;
  /** Checks whose answer did not show the acknowledged write, and the first few of them. */
  stale: number;
  staleSamples: string[];
  distinctUrls: number;
  nodes: number;
}

interface Answer {
  status: number;
  headers: Headers;
  body: unknown;
}

/** One write and what a fresh read of the changed record must then show. */
interface Expectation {
  id: number;
  /** The record, read in each language of the mix: a 200 showing `field`, or (deleted) this status. */
  record: { status: 200; field: (event: EventBody) => unknown; value: unknown } | { status: number };
  /** A list that selects the record by the written value (`include` ignores the date window): its total. */
  list: { query: string; total: number };
}

interface EventBody {
  title?: string;
  venue?: { id?: number } | unknown[];
  categories?: Array<{ id: number }>;
}

/** What a check reads: the record in each language, then a list selecting it (by `include` and `listQuery`). */
const checkUrls = (id: number, listQuery: string) => [
  ...LANGUAGES.map((language) => withLanguage(`${NS}/events/${id}`, language)),
  `${NS}/events?include=${id}${listQuery ? `&${listQuery}` : ''}`,
];

const AUTH = ADMIN_AUTH;
const day = 24 * 3600_000;
const wallClock = (ms: number) => new Date(ms).toISOString().slice(0, 19).replace('T', ' ');

/**
 * One mix over one or two nodes. Keeps its generators and the events it created from run to run (warm-up, then
 * measurement), so the whole sequence of reads and writes is the same on every bench run.
 */
export class Mix {
  readonly urls: ZipfUrls;
  private readonly rand = random(200);
  private written = 0;
  /** Events the mix created and has not deleted yet: deletes take the oldest, so the data keeps its size. */
  private readonly created: number[] = [];

  constructor(
    private readonly fixture: Fixture,
    private readonly writeEvery = 200,
  ) {
    this.urls = new ZipfUrls(mixUrls(fixture));
  }

  /**
   * Loads `ports` (one autocannon per node, the connections split between them) for `seconds`, writing once in
   * `writeEvery` requests (the mix's own setting unless given).
   */
  async run(ports: number[], connections: number, seconds: number, writeEvery = this.writeEvery): Promise<MixResult> {
    const latencies: number[] = [];
    const statuses: Record<string, number> = {};
    const result: MixResult = {
      seconds: 0,
      requests: 0,
      reads: 0,
      writes: 0,
      checks: 0,
      latencies,
      statuses,
      unexpected: 0,
      errors: 0,
      timeouts: 0,
      stale: 0,
      staleSamples: [],
      distinctUrls: this.urls.urls.length,
      nodes: ports.length,
    };
    let nextWrite = writeEvery;
    let wake: (() => void) | undefined;
    const answered = (status: number, ms: number, counted: boolean) => {
      result.requests++;
      latencies.push(ms);
      if (counted) {
        statuses[status] = (statuses[status] ?? 0) + 1;
        if (status < 200 || status > 299) result.unexpected++;
      }
      if (result.requests >= nextWrite && wake) {
        const resume = wake;
        wake = undefined;
        resume();
      }
    };
    const started = performance.now();
    const runs = ports.map((port, node) => {
      const run = autocannon({
        url: `http://127.0.0.1:${port}`,
        connections: Math.max(1, Math.round(connections / ports.length) - (node === 0 ? 1 : 0)), // one is the writer's
        duration: seconds,
        requests: [{ setupRequest: (request) => ({ ...request, path: this.urls.next() }) }],
      });
      run.on('response', (_client, status, _bytes, ms) => {
        result.reads++;
        answered(status, ms, true);
      });
      return run;
    });
    let running = true;
    const writer = (async () => {
      while (running) {
        if (result.requests < nextWrite) await new Promise<void>((resolve) => (wake = resolve));
        if (!running) break;
        const from = result.requests;
        const k = this.written++;
        const node = ports[k % ports.length];
        const other = ports[(k + 1) % ports.length];
        // the checking node reads what the write will change first, so the check finds it cached (when the cache is on)
        const prime = async (id: number, query: string) => {
          for (const url of checkUrls(id, query)) {
            result.checks++;
            await this.request(other, url, {}, answered, false);
          }
        };
        const expectation = await this.write(node, k, result, answered, prime);
        if (expectation) await this.check(other, expectation, k, result, answered);
        nextWrite = from + writeEvery;
      }
    })();
    const finished = await Promise.all(runs);
    running = false;
    wake?.();
    await writer;
    result.seconds = (performance.now() - started) / 1000;
    for (const r of finished) {
      result.errors += r.errors;
      result.timeouts += r.timeouts;
    }
    return result;
  }

  private async request(
    port: number,
    path: string,
    init: { method?: string; body?: object },
    answered: (status: number, ms: number, counted: boolean) => void,
    counted: boolean,
  ): Promise<Answer | undefined> {
    const started = performance.now();
    try {
      const response = await fetch(`http://127.0.0.1:${port}${path}`, {
        method: init.method ?? 'GET',
        headers: init.body || init.method ? { authorization: AUTH, 'content-type': 'application/json' } : {},
        body: init.body && JSON.stringify(init.body),
        signal: AbortSignal.timeout(60_000),
      });
      const text = await response.text();
      answered(response.status, performance.now() - started, counted);
      let body: unknown;
      try {
        body = JSON.parse(text);
      } catch {
        body = text;
      }
      return { status: response.status, headers: response.headers, body };
    } catch {
      return undefined;
    }
  }

  /** The k-th write, on `port`: what it changed, or undefined when it was not acknowledged. */
  private async write(
    port: number,
    k: number,
    result: MixResult,
    answered: (status: number, ms: number, counted: boolean) => void,
    prime: (id: number, listQuery: string) => Promise<void>,
  ): Promise<Expectation | undefined> {
    const f = this.fixture;
    const pick = <T>(items: T[]): T => items[Math.floor(this.rand() * items.length)];
    const kind = WRITE_KINDS[k % WRITE_KINDS.length];
    const send = async (method: string, path: string, body?: object) => {
      result.writes++;
      const answer = await this.request(port, path, { method, body }, answered, true);
      if (!answer) result.errors++;
      return answer && answer.status >= 200 && answer.status < 300 ? answer : undefined;
    };
    const title = `${pick(NEW_WORDS)} ${pick(NOUNS)} ${k}`;
    const word = title.split(' ')[0].toLowerCase();
    const categories = [
      ...new Set([1 + Math.floor(this.rand() * CATEGORIES), 1 + Math.floor(this.rand() * CATEGORIES)]),
    ];
    const venue = pick(f.venueIds);
    if (kind === 'delete' && this.created.length === 0) return undefined; // nothing of ours to delete yet
    const id = kind === 'delete' ? (this.created.shift() as number) : pick(f.standaloneEventIds);
    const ids = [...categories].sort((a, b) => a - b);
    const listQuery = { title: `search=${word}`, venue: `venue=${venue}`, categories: `categories=${ids[0]}` };
    if (kind !== 'create') await prime(id, kind === 'delete' ? '' : listQuery[kind]);
    switch (kind) {
      case 'title':
        if (!(await send('POST', `${NS}/events/${id}`, { title }))) return undefined;
        return {
          id,
          record: { status: 200, field: (e) => e.title, value: title },
          list: { query: listQuery.title, total: 1 },
        };
      case 'venue':
        if (!(await send('POST', `${NS}/events/${id}`, { venue }))) return undefined;
        return {
          id,
          record: { status: 200, field: (e) => (Array.isArray(e.venue) ? undefined : e.venue?.id), value: venue },
          list: { query: listQuery.venue, total: 1 },
        };
      case 'categories': {
        if (!(await send('POST', `${NS}/events/${id}`, { categories }))) return undefined;
        return {
          id,
          record: {
            status: 200,
            field: (e) => (e.categories ?? []).map((c) => c.id).sort((a, b) => a - b),
            value: ids,
          },
          list: { query: listQuery.categories, total: 1 },
        };
      }
      case 'create': {
        const start = Date.now() + (1 + (k % 300)) * day; // inside the default window: list pages change
        const answer = await send('POST', `${NS}/events`, {
          title,
          status: 'publish',
          start_date: wallClock(start),
          end_date: wallClock(start + 2 * 3600_000),
          venue,
          categories,
        });
        const created = (answer?.body as { id?: number } | undefined)?.id;
        if (!created) return undefined;
        this.created.push(created);
        return {
          id: created,
          record: { status: 200, field: (e) => e.title, value: title },
          list: { query: `search=${word}`, total: 1 },
        };
      }
      case 'delete':
        if (!(await send('DELETE', `${NS}/events/${id}`))) return undefined;
        return { id, record: { status: 403 }, list: { query: '', total: 0 } };
    }
  }

  /** Reads the written record on `port` in each language, and a list that selects it: counts what is stale. */
  private async check(
    port: number,
    expectation: Expectation,
    k: number,
    result: MixResult,
    answered: (status: number, ms: number, counted: boolean) => void,
  ): Promise<void> {
    const stale = (what: string) => {
      result.stale++;
      if (result.staleSamples.length < 10) result.staleSamples.push(`write ${k}, event ${expectation.id}: ${what}`);
    };
    const { id, record, list } = expectation;
    const urls = checkUrls(id, list.query);
    const listUrl = urls.pop() as string;
    for (const url of urls) {
      result.checks++;
      const answer = await this.request(port, url, {}, answered, false);
      if (!answer) {
        result.errors++;
        continue;
      }
      if (answer.status !== record.status) stale(`GET ${url} answered ${answer.status}, not ${record.status}`);
      else if ('field' in record) {
        const got = record.field(answer.body as EventBody);
        if (JSON.stringify(got) !== JSON.stringify(record.value))
          stale(`GET ${url} shows ${JSON.stringify(got)}, not ${JSON.stringify(record.value)}`);
      }
    }
    const url = listUrl;
    result.checks++;
    const answer = await this.request(port, url, {}, answered, false);
    if (!answer) {
      result.errors++;
      return;
    }
    const total = Number(answer.headers.get('x-wp-total'));
    if (answer.status !== 200 || total !== list.total)
      stale(`GET ${url} answered ${answer.status} with a total of ${total}, not ${list.total}`);
  }
}

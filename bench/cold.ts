/**
 * The "cold" variant (D108): the filtered list queries of the bench, each request a query the service has not
 * seen before, sent one at a time on an otherwise idle service with its cache off. Event lists move the start of
 * their window by one second per request (`strict_dates`, so the second counts): a new page and a new exact total
 * every time. `GET /venues` and `GET /organizers` have no window; they change `per_page` (then `page`) instead.
 * See D108.
 */
import type { Fixture } from './seed';

const NS = '/calendar/events/v1';

export interface ColdQuery {
  /** The warm scenario this is the cold form of. */
  name: string;
  /** The k-th request (k ≥ 0): no two k give the same query. */
  path(k: number): string;
}

export interface ColdMeasurement {
  requests: number;
  p50: number;
  max: number;
  /** Statuses other than 200, by status. */
  unexpected: Record<string, number>;
}

/** `now`: the instant the window is placed around (yesterday 00:00 UTC, as the default window, then k seconds). */
export function coldQueries(f: Fixture, now: number): ColdQuery[] {
  const yesterday = Math.floor(now / 86_400_000) * 86_400_000 - 86_400_000;
  const window = (k: number) =>
    `strict_dates=true&start_date=${new Date(yesterday + k * 1000).toISOString().slice(0, 19).replace('T', '%20')}`;
  const events = (query: string) => (k: number) => `${NS}/events?${query}&${window(k)}`;
  // per_page is capped at 50 (§1.7): 1…50 on page 1, then on page 2, …
  const paging = (k: number) => `per_page=${1 + (k % 50)}&page=${1 + Math.floor(k / 50)}`;
  const nth = <T>(items: T[], k: number) => items[k % items.length];
  return [
    { name: 'list categories+search', path: events(`categories=${f.categoryId}&search=${f.searchWord}`) },
    { name: 'list search', path: events(`search=${f.searchWord}`) },
    { name: 'list search rare', path: events(`search=${f.rareWord}`) },
    {
      name: 'list by geolocation',
      path: events(`geoloc_lat=${f.geoCenter.lat}&geoloc_lng=${f.geoCenter.lng}&geoloc_radius=25`),
    },
    { name: 'list by venue', path: (k) => events(`venue=${nth(f.venueIds, k)}`)(k) },
    { name: 'list by organizer', path: (k) => events(`organizer=${nth(f.organizerIds, k)}`)(k) },
    { name: 'venues', path: (k) => `${NS}/venues?${paging(k)}` },
    { name: 'organizers', path: (k) => `${NS}/organizers?${paging(k)}` },
  ];
}

/** Request 0 is not measured (it may be the first of its kind since the server started); 1…requests are. */
export async function measureCold(port: number, query: ColdQuery, requests: number): Promise<ColdMeasurement> {
  const times: number[] = [];
  const unexpected: Record<string, number> = {};
  for (let k = 0; k <= requests; k++) {
    const started = performance.now();
    let status = 0;
    try {
      const response = await fetch(`http://127.0.0.1:${port}${query.path(k)}`, { signal: AbortSignal.timeout(60_000) });
      await response.arrayBuffer();
      status = response.status;
    } catch {
      /* counted below as status 0 */
    }
    if (k === 0) continue;
    times.push(performance.now() - started);
    if (status !== 200) unexpected[status] = (unexpected[status] ?? 0) + 1;
  }
  times.sort((a, b) => a - b);
  return { requests, p50: times[Math.floor(times.length / 2)] ?? NaN, max: times[times.length - 1] ?? NaN, unexpected };
}

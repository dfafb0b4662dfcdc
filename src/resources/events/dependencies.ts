/**
 * What an event's representation depends on (src/cache/), read in one query with the page: its own stamp and the
 * stamps of what it embeds (venue, organizers, its series, categories and tags), and how the caller sees it (the
 * view, whether each embedded venue and organizer is readable to them), in a language, on a root. Every write that
 * changes any of these raises a stamp in its transaction (core/stamps.ts), so a key read after an acknowledged write
 * never names an entry rendered before it, on any node.
 *
 * An event is kept in two parts: its bytes without categories and tags (keyed by all but the terms), and each term
 * as events embed it (keyed by the term's own stamp), spliced when a page is made (records.ts). A term's stamp moves
 * with its count, so a count moved by one write renders that term again, not every event that shows it.
 */
import type { Executor } from '../../db/types';
import { rawRows, toNumber } from '../../db/dialect';
import { booleanAsText } from '../../db/dialects/booleans';
import { canRead, type Caller } from '../../users/roles';
import type { RenderOptions as EventView } from './mapper';
import type { EventRow } from './repository';
import type { Witness } from '../../cache/proofs';

interface Dependency {
  kind: 'term' | 'organizer' | 'post' | 'series';
  owner: number;
  id: number;
  stamp: number;
  /** Venues and organizers: what readability looks at; series members: whether detached; terms: the taxonomy. */
  status: string | null;
  author: number | null;
  /** Terms: their place among an event's terms (the lower-cased name). */
  sort: string | null;
}

/** A category or tag an event shows, at the stamp read with the page. */
export interface TermShown {
  id: number;
  stamp: number;
  taxonomy: string;
}

/** An event's representation as two parts: the key of its bytes without terms, and the terms it shows, in order. */
export interface EventParts {
  key: string;
  terms: TermShown[];
}

/**
 * One round trip for a page: the embedded records' stamps (ids of a page are few; every branch is by index). Terms
 * come in the order events show them (terms/repository.ts: by lower-cased name, then id).
 */
async function dependenciesOf(db: Executor, rows: EventRow[]): Promise<Dependency[]> {
  const ids = rows.map((row) => row.id);
  const posts = [
    ...new Set(rows.flatMap((row) => [row.venue_id, row.post_parent]).filter((id): id is number => id !== null)),
  ];
  const list = (values: number[]) => (values.length ? values : [0]);
  const found = (await db.raw(
    `select 'term' as kind, tr.post_id as owner, t.id, t.stamp, t.taxonomy as status, null as author,
            lower(t.name) as sort
       from term_relationships tr join terms t on t.id = tr.term_id where tr.post_id in (${marks(ids)})
     union all
     select 'organizer', eo.event_id, p.id, p.stamp, p.status, p.author_id, null
       from event_organizers eo join posts p on p.id = eo.organizer_id where eo.event_id in (${marks(ids)})
     union all
     select 'series', so.event_id, p.id, p.stamp, ${detachedText(db)}, null, null
       from series_occurrences so join posts p on p.id = so.series_id where so.event_id in (${marks(ids)})
     union all
     select 'post', p.id, p.id, p.stamp, p.status, p.author_id, null from posts p where p.id in (${marks(list(posts))})
     order by sort, id`,
    [...ids, ...ids, ...ids, ...list(posts)],
  )) as unknown;
  const rowsFound = rawRows<Record<string, unknown>>(found);
  return rowsFound.map((row) => ({
    kind: row.kind as Dependency['kind'],
    owner: toNumber(row.owner),
    id: toNumber(row.id),
    stamp: toNumber(row.stamp),
    status: row.status === null ? null : String(row.status),
    author: row.author === null || row.author === undefined ? null : toNumber(row.author),
    sort: row.sort === null || row.sort === undefined ? null : String(row.sort),
  }));
}

const marks = (values: unknown[]) => values.map(() => '?').join(', ');

/** `detached` as text on both engines (a boolean on PostgreSQL, an integer on SQLite). */
const detachedText = (db: Executor) => booleanAsText(db, 'so.detached');

/** The parts of each row's representation, seen by `caller` in `view`. */
export async function eventParts(
  db: Executor,
  rows: EventRow[],
  views: EventView[],
  caller: Caller | undefined,
  scope: string,
  witness?: Witness,
): Promise<EventParts[]> {
  if (!rows.length) return [];
  const byOwner = new Map<number, string[]>();
  const termsOf = new Map<number, TermShown[]>();
  const posts = new Map<number, Dependency>();
  for (const row of rows) witness?.saw('posts', row.id, row.stamp);
  for (const dep of await dependenciesOf(db, rows)) {
    if (dep.kind === 'term') witness?.sawEmbedded(dep.id, dep.stamp, dep.sort ?? '');
    else witness?.saw('posts', dep.id, dep.stamp);
    if (dep.kind === 'post') posts.set(dep.id, dep);
    else if (dep.kind === 'term') append(termsOf, dep.owner, termShown(dep));
    else append(byOwner, dep.owner, part(dep, caller));
  }
  const keyOf = (row: EventRow, { single = false, blanked = false }: EventView) => {
    const venue = row.venue_id === null ? undefined : posts.get(row.venue_id);
    return [
      scope,
      `${single ? 's' : '-'}${blanked ? 'b' : '-'}`,
      `e${row.id}.${row.stamp}`,
      venue ? linked('v', 'venues', venue, caller) : 'v',
      row.post_parent === null ? 'p' : `p${row.post_parent}.${posts.get(row.post_parent)?.stamp ?? '-'}`,
      ...(byOwner.get(row.id) ?? []).sort(),
    ].join('|');
  };
  return rows.map((row, i) => ({ key: keyOf(row, views[i]), terms: termsOf.get(row.id) ?? [] }));
}

const termShown = ({ id, stamp, status }: Dependency): TermShown => ({ id, stamp, taxonomy: status ?? '' });

function append<T>(map: Map<number, T[]>, owner: number, value: T): void {
  const list = map.get(owner);
  if (list) list.push(value);
  else map.set(owner, [value]);
}

function part(dep: Dependency, caller: Caller | undefined): string {
  if (dep.kind === 'series') return `s${dep.id}.${dep.stamp}.${dep.status}`;
  return linked('o', 'organizers', dep, caller);
}

/** An embedded venue or organizer: shown only to callers who may read it (docs/decisions.md D63). */
function linked(prefix: string, type: 'venues' | 'organizers', dep: Dependency, caller: Caller | undefined): string {
  const readable = dep.status !== 'trash' && canRead(caller, type, { authorId: dep.author, status: dep.status ?? '' });
  return `${prefix}${dep.id}.${dep.stamp}${readable ? 'r' : 'x'}`;
}

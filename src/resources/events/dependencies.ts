/**
 * What an event's representation depends on, as a cache key (src/cache/): its own stamp and the stamps of what it
 * embeds (venue, organizers, categories and tags, its series), read in one query with the page, and how the caller
 * sees it (the view, whether each embedded venue and organizer is readable to them), in a language, on a root.
 * Every write that changes any of these raises a stamp in its transaction (core/stamps.ts), so a key read after an
 * acknowledged write never names an entry rendered before it, on any node.
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
  /** Venues and organizers: what readability looks at; series members: whether detached. */
  status: string | null;
  author: number | null;
}

/** One round trip for a page: the embedded records' stamps (ids of a page are few; every branch is by index). */
async function dependenciesOf(db: Executor, rows: EventRow[]): Promise<Dependency[]> {
  const ids = rows.map((row) => row.id);
  const posts = [
    ...new Set(rows.flatMap((row) => [row.venue_id, row.post_parent]).filter((id): id is number => id !== null)),
  ];
  const list = (values: number[]) => (values.length ? values : [0]);
  const found = (await db.raw(
    `select 'term' as kind, tr.post_id as owner, t.id, t.stamp, null as status, null as author
       from term_relationships tr join terms t on t.id = tr.term_id where tr.post_id in (${marks(ids)})
     union all
     select 'organizer', eo.event_id, p.id, p.stamp, p.status, p.author_id
       from event_organizers eo join posts p on p.id = eo.organizer_id where eo.event_id in (${marks(ids)})
     union all
     select 'series', so.event_id, p.id, p.stamp, ${detachedText(db)}, null
       from series_occurrences so join posts p on p.id = so.series_id where so.event_id in (${marks(ids)})
     union all
     select 'post', p.id, p.id, p.stamp, p.status, p.author_id from posts p where p.id in (${marks(list(posts))})`,
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
  }));
}

const marks = (values: unknown[]) => values.map(() => '?').join(', ');

/** `detached` as text on both engines (a boolean on PostgreSQL, an integer on SQLite). */
const detachedText = (db: Executor) => booleanAsText(db, 'so.detached');

/** The cache key of each row's representation, seen by `caller` in `view`. */
export async function eventKeys(
  db: Executor,
  rows: EventRow[],
  views: EventView[],
  caller: Caller | undefined,
  scope: string,
  witness?: Witness,
): Promise<string[]> {
  if (!rows.length) return [];
  const byOwner = new Map<number, string[]>();
  const posts = new Map<number, Dependency>();
  for (const row of rows) witness?.saw('posts', row.id, row.stamp);
  for (const dep of await dependenciesOf(db, rows)) {
    witness?.saw(dep.kind === 'term' ? 'terms' : 'posts', dep.id, dep.stamp);
    if (dep.kind === 'post') posts.set(dep.id, dep);
    else byOwner.set(dep.owner, [...(byOwner.get(dep.owner) ?? []), part(dep, caller)]);
  }
  return rows.map((row, i) => {
    const { single = false, blanked = false } = views[i];
    const venue = row.venue_id === null ? undefined : posts.get(row.venue_id);
    const parts = [
      scope,
      `${single ? 's' : '-'}${blanked ? 'b' : '-'}`,
      `e${row.id}.${row.stamp}`,
      venue ? linked('v', 'venues', venue, caller) : 'v',
      row.post_parent === null ? 'p' : `p${row.post_parent}.${posts.get(row.post_parent)?.stamp ?? '-'}`,
      ...(byOwner.get(row.id) ?? []).sort(),
    ];
    return parts.join('|');
  });
}

function part(dep: Dependency, caller: Caller | undefined): string {
  if (dep.kind === 'term') return `t${dep.id}.${dep.stamp}`;
  if (dep.kind === 'series') return `s${dep.id}.${dep.stamp}.${dep.status}`;
  return linked('o', 'organizers', dep, caller);
}

/** An embedded venue or organizer: shown only to callers who may read it (docs/decisions.md D63). */
function linked(prefix: string, type: 'venues' | 'organizers', dep: Dependency, caller: Caller | undefined): string {
  const readable = dep.status !== 'trash' && canRead(caller, type, { authorId: dep.author, status: dep.status ?? '' });
  return `${prefix}${dep.id}.${dep.stamp}${readable ? 'r' : 'x'}`;
}

/**
 * `search` on lists: the one entry point the events, venues/organizers and terms repositories call.
 *
 * A search is cut into normalised fragments (`normalise.ts`); a record matches when its search document in the
 * requested language (else its original one) satisfies the resource's rule, as substrings:
 * - events and terms: every fragment in some field (AND of fragments, OR of fields);
 * - venues and organizers: some field holding every fragment (docs/compatibility.md §5.2).
 *
 * The exact rule is `LIKE '%fragment%'` (wildcards escaped) on the normalised columns, the same SQL on both engines,
 * except where SQLite's FTS5 match already settles it. What finds the candidates differs:
 * - PostgreSQL: the `pg_trgm` GIN index on the columns serves those `LIKE`s directly (fragments of 3+ characters).
 * - SQLite: an FTS5 `trigram` index (`search_fts`) narrows the rows first: a fragment of 3+ characters is a phrase;
 *   a shorter one becomes the OR of the indexed trigrams that start with it (read from `search_vocab`), which is
 *   exact because every stored field ends with two marker characters (`END_MARK`).
 * Fragments under 3 characters on PostgreSQL, and on SQLite a 1–2 character fragment so common that more than
 * `MAX_EXPANSION` trigrams start with it, are checked by the `LIKE` alone; when no fragment of a search can use an
 * index, the search documents (not the events) are scanned.
 *
 * A record with protected fields (a password-protected event) that the caller may not read matches on its open
 * fields only: every fragment in an open field, or the record unlocked (D64). Otherwise whether it is found would
 * tell, fragment by fragment, what its hidden text holds.
 *
 * A search is resolved to the ids of every matching record before the list query runs (D110), and that match set is
 * memoised per data version (src/db/memo.ts): until the next write, any other list with the same search (another
 * page, window, category or venue) skips the trigram index and the language rule altogether. A selective set (at
 * most `FEW_MATCHES` records) is applied as a list of ids, which the list reads by primary key (left as a subquery,
 * a rare word made both planners walk the whole date window in order to fill a page they rarely found: ~1 s at 1 M
 * events); a larger one as one bound value (a JSON array on SQLite, a comma-separated list on PostgreSQL) that the
 * list's own order is walked against, as the subquery was, but without computing the matches again for the page
 * and again for the count.
 */
import type { Knex } from 'knex';
import type { Executor } from '../db/types';
import { likeContains } from '../db/dialect';
import {
  documentsByCandidate,
  narrowsWithFts,
  whereIdInBoundSet,
  whereIdInSubquery,
  whereNotAmong,
} from '../db/dialects/search';
import { PROTECTED_FIELDS, SEARCH_COLUMNS, SEARCH_FIELDS, type SearchKind } from './documents';
import { searchFragments, type FragmentRule } from './normalise';
import { memo } from '../db/memo';
import { rechecked, selectedIds } from '../db/counts';
import { changedAfter } from '../db/feed-position';
import { KIND_NAMES, KINDS } from '../kinds/registry';

export type { SearchKind } from './documents';

const TRIGRAM = 3;
/** Above this many trigrams, a short fragment is too common for the index to narrow much: `LIKE` checks it alone. */
const MAX_EXPANSION = 200;
/** A search matching at most this many records is applied as a list of their ids. */
const FEW_MATCHES = 1000;

/** Whether a match set is applied as a list of its ids (few), rather than as one bound set. */
export function fewMatches(ids: ArrayLike<number>): boolean {
  return ids.length <= FEW_MATCHES;
}
/** At most this many changes since a match set was found are checked one by one; more, and it is found again. */
const MAX_PATCHED = 500;
/** The search kind of each record kind the change feed names. */
const SEARCH_KIND_OF: Record<string, string | null> = Object.fromEntries(
  KIND_NAMES.map((kind) => [kind, KINDS[kind].searchKind]),
);

const RULES: Record<SearchKind, { fragments: FragmentRule; everyFragmentInOneField: boolean }> = {
  event: { fragments: 'words', everyFragmentInOneField: false },
  venue: { fragments: 'fragments', everyFragmentInOneField: true },
  organizer: { fragments: 'fragments', everyFragmentInOneField: true },
  term: { fragments: 'whole', everyFragmentInOneField: false },
};

/** Who may match on protected fields: the caller's rule, as SQL on a `posts` row. */
export interface ProtectedFields {
  /** Restricts `query` to the records (the `posts` row is `alias`) whose protected fields the caller may read. */
  unlocked(query: Knex.QueryBuilder, alias: string): void;
}

/** A search resolved for one kind of record and language, ready to be applied to a list query. */
export interface SearchQuery {
  kind: SearchKind;
  language: string;
  fragments: string[];
  /** SQLite: the FTS5 expression that narrows the candidates (none: scan); `false`: nothing can match. */
  fts?: string | false;
  /** Fragments the FTS5 expression does not settle exactly, left to `LIKE`. */
  unsettled: string[];
  /** Every matching record, sorted (absent only where a caller builds the query itself: the plan tests). */
  ids?: MatchSet;
  /** Set when the caller may not read every record's protected fields. */
  protect?: ProtectedFields;
}

/**
 * Resolves `search` for `kind` in `language` (on SQLite, looks up which trigrams short fragments may be); `protect`
 * when the caller may not read every record's protected fields.
 */
export async function prepareSearch(
  db: Executor,
  kind: SearchKind,
  search: string,
  language: string,
  protect?: ProtectedFields,
): Promise<SearchQuery | undefined> {
  const fragments = searchFragments(search, RULES[kind].fragments);
  if (!fragments.length) return undefined;
  const guarded = protect && PROTECTED_FIELDS[kind] ? { protect } : {};
  const resolved = {
    ...(narrowsWithFts(db)
      ? await resolveFts(db, kind, language, fragments)
      : { kind, language, fragments, unsettled: fragments }),
    ...guarded,
  };
  if (resolved.fts === false) return resolved;
  return { ...resolved, ids: await matchingIds(db, resolved) };
}

/**
 * The search with its match set as it is now (memoised: brought up to date if a write came since it was resolved),
 * for a query that must see the same data as the statements around it.
 */
export async function withCurrentMatches(db: Executor, search: SearchQuery): Promise<SearchQuery> {
  return search.ids ? { ...search, ids: await matchingIds(db, search) } : search;
}

/**
 * The search with its match set left to be read again (`withCurrentMatches`): what outlives the request, a kept
 * answer's proof, keeps the question and not the hundreds of kilobytes of a common word's set of the day.
 */
export function forgetMatches(search: SearchQuery): SearchQuery {
  return search.ids ? { ...search, ids: UNREAD } : search;
}
const UNREAD: MatchSet = new Int32Array(0);

/** Names what a search matches, whatever its match set holds now: the same name for the same question. */
export function searchName(db: Executor, search: SearchQuery): string {
  if (search.fts === false) return 'nothing';
  const { sql, bindings } = matchingDocuments(db, search).toSQL();
  return `${sql}\n${JSON.stringify(bindings)}`;
}

/** The ids of the records a search matches, sorted, 4 bytes each. */
type MatchSet = Int32Array;

/**
 * Match sets, memoised and brought up to date after writes, weighed in bytes (4 an id; the text of a set bound as
 * one value is kept apart, db/dialects/search.ts). 32 MB holds 8 M ids: the 40 common words of a million events in
 * three languages (6 M) are found once, not again each time the least asked of them comes round (40 ms each).
 */
const matchSets = memo<MatchSet>((ids) => ids.length * 4 + 64, {
  entries: 400,
  budget: 32_000_000,
});

/**
 * The ids of every record that matches, sorted: memoised, brought up to date after writes (src/db/memo.ts). In a
 * language nothing of the kind is translated into, they are those whose original matches: found once for every such
 * language (a common word's 50 000 matches take 40 ms to find at a million events), then kept and brought up to date
 * for each by its own rule, so a translation written later moves its language's set alone. `originals`: every
 * record's original alone, whatever the language.
 */
function matchingIds(db: Executor, search: SearchQuery, originals = false): Promise<MatchSet> {
  const documents = matchingDocuments(db, search, originals);
  const { sql, bindings } = documents.toSQL();
  const find = async () =>
    !originals && !(await translatedInto(db, search))
      ? matchingIds(db, search, true)
      : selectedIds(db, documents, 'record_id');
  return matchSets.get(db, `${sql}\n${JSON.stringify(bindings)}`, find, (ids, since) =>
    patched(db, search, ids, since, originals),
  );
}

/** The documents of the search's kind translated into its language (a partial index holds them: a look-up). */
function translated(db: Executor, { kind, language }: SearchQuery): Knex.QueryBuilder {
  // literal conditions, as the partial indexes' own (a bound value would not tell the planner they hold)
  return db('search_docs').where({ kind, language }).whereRaw('is_original = 0');
}

async function translatedInto(db: Executor, search: SearchQuery): Promise<boolean> {
  return (await translated(db, search).first('record_id')) !== undefined;
}

/**
 * A match set brought up to date after writes: whether a record matches depends on its own documents alone, so only
 * the records of this kind changed since are checked again, each by its id with the exact rule (`LIKE`, no index).
 */
async function patched(
  db: Executor,
  search: SearchQuery,
  ids: MatchSet,
  since: number,
  originals: boolean,
): Promise<MatchSet | undefined> {
  const changed = await changedAfter(db, since, MAX_PATCHED);
  if (!changed) return undefined;
  const recheck = new Set(
    changed.filter(({ resource }) => SEARCH_KIND_OF[resource] === search.kind).map(({ id }) => id),
  );
  if (!recheck.size) return ids;
  const exact = { ...search, fts: undefined, unsettled: search.fragments };
  const rows = await matchingDocuments(db, exact, originals).whereIn('d.record_id', [...recheck]);
  const matching = new Set<number>(rows.map((row: { record_id: unknown }) => Number(row.record_id)));
  return rechecked(ids, recheck, matching);
}

async function resolveFts(db: Executor, kind: SearchKind, language: string, fragments: string[]): Promise<SearchQuery> {
  const { expression, settled } = await ftsExpression(db, fragments);
  // an FTS5 phrase matches inside one column, so it settles "this fragment in some field" exactly, not §5.2's rule
  const unsettled = RULES[kind].everyFragmentInOneField ? fragments : fragments.filter((f) => !settled.includes(f));
  return { kind, language, fragments, fts: expression, unsettled };
}

/** Restricts `query` to the records (whose id is in `idColumn`) that match `search`. */
export function whereSearchMatches(
  db: Executor,
  query: Knex.QueryBuilder,
  idColumn: string,
  search: SearchQuery,
): Knex.QueryBuilder {
  if (search.fts === false) return query.whereRaw('1 = 0');
  const { ids } = search;
  if (ids) {
    if (!ids.length) return query.whereRaw('1 = 0');
    if (fewMatches(ids)) return query.whereIn(idColumn, Array.from(ids));
    // many: one bound value holding them all; the list walks its own order, testing each record against the set
    return whereIdInBoundSet(db, query, idColumn, ids);
  }
  return whereIdInSubquery(db, query, idColumn, matchingDocuments(db, search));
}

/**
 * The ids (`record_id`) of the search documents that match, in the requested language or else the original
 * (`originals`: the original alone).
 */
function matchingDocuments(db: Executor, search: SearchQuery, originals = false): Knex.QueryBuilder {
  // SQLite: the FTS5 matches drive, each looked up by primary key (not every document of the kind)
  const documents = (
    search.fts
      ? db('search_fts')
          .join(documentsByCandidate(db), 'd.id', 'search_fts.rowid')
          .whereRaw('search_fts match ?', [search.fts])
      : db('search_docs as d')
  )
    .select('d.record_id')
    .where('d.kind', search.kind)
    .where((inLanguage) => {
      if (originals) return inLanguage.where('d.is_original', 1);
      inLanguage.where('d.language', search.language).orWhere((original) => {
        whereNotAmong(db, original.where('d.is_original', 1), 'd.record_id', translated(db, search), 'record_id');
      });
    });
  if (search.unsettled.length)
    documents.where((match) => exactRule(match, search.kind, searchedColumns(search.kind), search.unsettled));
  const { protect } = search;
  if (protect) {
    // not protected (nearly every record: no look-up), or the caller may read its protected fields, or it matched on
    // its open fields; the text is read in a subquery, so that the candidates' own rows are not read for it
    documents.where((open) => {
      open
        .where((unprotected) =>
          whereNotAmong(db, unprotected, 'd.record_id', db('posts').whereRaw(`password <> ''`), 'id'),
        )
        .orWhereExists(
          db('posts as pw')
            .select(db.raw('1'))
            .whereRaw('pw.id = d.record_id')
            .where((unlocked) => protect.unlocked(unlocked, 'pw')),
        )
        .orWhereExists(
          db('search_docs as x')
            .select(db.raw('1'))
            .whereRaw('x.id = d.id')
            .where((match) => exactRule(match, search.kind, openColumns(search.kind), search.fragments, 'x')),
        );
    });
  }
  return documents;
}

const searchedColumns = (kind: SearchKind) => SEARCH_COLUMNS.slice(0, SEARCH_FIELDS[kind].length);

/** The columns of the fields anyone may match on. */
const openColumns = (kind: SearchKind) =>
  searchedColumns(kind).filter((_column, i) => !PROTECTED_FIELDS[kind]?.includes(SEARCH_FIELDS[kind][i]));

function exactRule(
  query: Knex.QueryBuilder,
  kind: SearchKind,
  columns: string[],
  fragments: string[],
  alias = 'd',
): void {
  const contains = (q: Knex.QueryBuilder, column: string, fragment: string) =>
    q.whereRaw(`?? like ? escape '\\'`, [`${alias}.${column}`, likeContains(fragment)]);
  if (RULES[kind].everyFragmentInOneField) {
    for (const column of columns)
      query.orWhere((all) => {
        for (const fragment of fragments) contains(all, column, fragment);
      });
  } else {
    for (const fragment of fragments)
      query.where((any) => {
        for (const column of columns) any.orWhere((o) => contains(o, column, fragment));
      });
  }
}

/**
 * The FTS5 query every matching document satisfies: AND of one term per fragment that an index can narrow, each
 * true exactly when the fragment occurs in some column (those fragments are `settled`).
 */
async function ftsExpression(
  db: Executor,
  fragments: string[],
): Promise<{ expression?: string | false; settled: string[] }> {
  const terms: string[] = [];
  const settled: string[] = [];
  for (const fragment of fragments) {
    if ([...fragment].length >= TRIGRAM) {
      terms.push(phrase(fragment));
      settled.push(fragment);
      continue;
    }
    const trigrams = await trigramsStartingWith(db, fragment);
    if (!trigrams.length) return { expression: false, settled }; // no stored text holds it
    if (trigrams.length <= MAX_EXPANSION) {
      terms.push(`(${trigrams.map(phrase).join(' OR ')})`);
      settled.push(fragment);
    }
  }
  return { expression: terms.length ? terms.join(' AND ') : undefined, settled };
}

async function trigramsStartingWith(db: Executor, prefix: string): Promise<string[]> {
  const rows: Array<{ term: string }> = await db('search_vocab')
    .where('term', '>=', prefix)
    .where('term', '<', `${prefix}\u{10FFFF}`)
    .limit(MAX_EXPANSION + 1)
    .select('term');
  return rows.map((row) => row.term);
}

const phrase = (text: string) => `"${text.replace(/"/g, '""')}"`;

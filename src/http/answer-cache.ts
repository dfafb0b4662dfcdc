/**
 * Repeated reads answered whole from the answer cache (src/cache/answers.ts, docs/decisions.md D136). Asked right
 * after authentication: a request names its entry by what its answer can depend on — path, query (parameters in
 * one order), caller, language and root — and the data version is read to check it. A hit replays the stored
 * headers and bytes (304 when `If-None-Match` holds its ETag); a miss runs as usual and, if it answers 200 JSON
 * for one of the reads below, is kept by `keepAnswer` as `conditionalReads` sends it.
 */
import type { Request, RequestHandler, Response } from 'express';
import type { Answer, AnswerCache } from '../cache/answers';
import { Witness, provedThrough, type MovedTerm, type Proof, type Retired } from '../cache/proofs';
import { dataVersion } from '../db/data-version';
import { versionAndPosition, type Standing } from '../db/feed-position';
import type { Executor } from '../db/types';
import { now } from '../domain/clock';
import { isTruthyText } from '../core/flags';
import { dependsOnNow, nextDayStart } from '../domain/dates';
import { caller } from './auth';
import { SECURITY_HEADERS } from './hardening';
import { context } from './context';
import { requestLanguage } from './language';
import { carriesSecret } from './request-log';
import { resolve, type Operation } from './spec';
import { answerTag, viewerOf } from './tags';
import { restRoot, type RequestLike } from './urls';
import { serviceSecret } from '../db/service-secret';

/**
 * The reads whose answers follow only the tables the data version watches, the caller, the language, the root and
 * the day: records and lists of records. Not the change feed and the audit trail (they move with tables it does not
 * watch), nor iCalendar (stamped with the time it is made).
 */
const CACHED_OPERATIONS = new Set([
  'listEvents',
  'getEvent',
  'getEventBySlug',
  'listEventOccurrences',
  'listVenues',
  'getVenue',
  'getVenueBySlug',
  'listOrganizers',
  'getOrganizer',
  'getOrganizerBySlug',
  'listCategories',
  'getCategory',
  'listTags',
  'getTag',
]);

/** Parameters that compare with the current instant to the second (`only_with_upcoming`: events not started yet). */
const READ_AGAINST_NOW = new Set(['only_with_upcoming']);

/** Date formats of the spec (D135): a value that depends on when it is read makes its answer move every second. */
const DATE_FORMATS = new Set(['strtotime', 'iso-8601']);

/** Query pairs beyond which a request is not kept. */
const MAX_PAIRS = 100;

/** Reads whose answers may be kept with a proof (cache/proofs.ts): what the proof of each looks at. */
const PROVABLE: Record<string, 'record' | 'list'> = {
  getEvent: 'record',
  getVenue: 'record',
  getOrganizer: 'record',
  getCategory: 'record',
  getTag: 'record',
  listEvents: 'list',
};

interface Pending {
  key: string;
  version: number;
  /** The change feed's position, read with the version, before the answer is made. */
  position: number;
  /** Gathers what the answer shows (readers of the request carry it: `witnessOf`). */
  witness: Witness;
  /** The response's headers when the cache was asked: what was set later belongs to the answer. */
  before: Map<string, unknown>;
}

/** The witness of each request whose answer may be kept. */
const witnesses = new WeakMap<object, Witness>();

/** What the readers of `req` tell what they read (http/reader.ts). */
export function witnessOf(req: object): Witness | undefined {
  return witnesses.get(req);
}

/**
 * Splices anew into a kept answer the embedded terms that moved in place (their counts, say), or undefined when it
 * cannot (resources/records.ts, `renewEmbeddedTerms`; given by the app's composition, which knows the records).
 */
export type RenewTerms = (req: Request, body: Buffer, moved: MovedTerm[]) => Promise<Buffer | undefined>;

/** The middleware: serves hits, and marks misses to be kept. */
export function serveAnswers(cache: AnswerCache, renewTerms: RenewTerms): RequestHandler {
  if (!cache.enabled) return (_req, _res, next) => next();
  return async (req, res, next) => {
    if ((req.method !== 'GET' && req.method !== 'HEAD') || !wantsJson(req.headers.accept)) return next();
    if (carriesSecret(req.originalUrl)) return next(); // a feed key or a password: never kept, never matched
    const root = restRoot(req);
    if (!cache.keepsRoot(root)) return next();
    const key = answerKey(req, root);
    if (key === undefined) return next();
    const { db } = context(req);
    const standing = await versionAndPosition(db);
    const { version, position } = standing;
    const answer = cache.get(key, now().getTime());
    const current = answer?.version === version;
    const found = answer && !current ? await provedAgain(req, answer, standing, renewTerms) : answer;
    if (found && typeof found !== 'string') {
      const served = found === answer ? found : (cache.keep(key, found) ?? found);
      cache.count(current ? 'hit' : served === answer ? 'proved' : 'renewed');
      res.locals.operation = served.operation;
      return replay(req, res, served);
    }
    cache.count('miss', found);
    const witness = new Witness();
    witnesses.set(req, witness);
    const before = new Map(Object.entries(res.getHeaders()));
    res.locals.pendingAnswer = { key, version, position, witness, before } as Pending;
    next();
  };
}

/**
 * A kept answer made at an older data version, as it is now, where the data stands (`at`): itself when its proof
 * holds, or renewed when only embedded terms moved in place; else why it is no longer exact. Either way no write
 * committed while it was checked (the checks then all read that state), and the answer is then the current one.
 */
async function provedAgain(req: Request, answer: Answer, at: Standing, renew: RenewTerms): Promise<Answer | Retired> {
  if (!answer.proof?.confirmed) return 'unproved';
  const { db } = context(req);
  const proved = await provedThrough(db, answer.proof, at);
  if (typeof proved === 'string') return proved;
  const renewed = proved.moved.length ? await withTermsRenewed(req, answer, proved.moved, renew) : answer;
  if (!renewed?.proof) return 'stamps';
  if ((await dataVersion(db)) !== at.version) return 'raced';
  const proof = { ...renewed.proof, position: proved.position };
  if (renewed !== answer) return { ...renewed, proof, version: at.version };
  answer.proof = proof;
  answer.version = at.version;
  return answer;
}

/** Reads whose answers show events with their categories and tags: renewed when only those moved in place. */
const EMBED_TERMS = new Set(['getEvent', 'listEvents']);

/** The answer with the moved terms spliced anew: its bytes, its ETag and its proof at their new stamps. */
async function withTermsRenewed(req: Request, answer: Answer, moved: MovedTerm[], renew: RenewTerms) {
  if (!answer.proof || !EMBED_TERMS.has((answer.operation as Operation).operationId)) return undefined;
  const body = await renew(req, answer.body, moved);
  if (!body) return undefined;
  const secret = await serviceSecret(context(req).db);
  const etag = answerTag(secret, viewerOf(req, 'json'), answer.recordVersion, body);
  const headers = answer.headers.map(([name, value]) => [name, name === 'etag' ? etag : value] as const);
  const terms = Float64Array.from(answer.proof.terms);
  const stamps = new Map(moved.map(({ id, to }) => [id, to]));
  for (let i = 0; i < terms.length; i += 2) terms[i + 1] = stamps.get(terms[i]) ?? terms[i + 1];
  return { ...answer, body, etag, headers, proof: { ...answer.proof, terms } };
}

/**
 * Sends a kept answer as Express's `send` sent it, without the wrappers a computed answer goes through (its ETag is
 * kept, not made again): its headers, then 304 without a body when the request's validators hold (as a computed
 * answer's: `If-None-Match`, else `If-Modified-Since`), else the bytes (none for HEAD).
 */
function replay(req: Request, res: Response, answer: Answer): void {
  for (const [name, value] of answer.headers) res.setHeader(name, value);
  res.statusCode = 200;
  if (unchanged(req, answer.etag)) {
    notModified(res);
    res.end();
    return;
  }
  res.setHeader('Content-Length', answer.body.length);
  res.end(req.method === 'HEAD' ? undefined : answer.body);
}

/**
 * Called as a 200 answer is sent, its ETag and cache headers set: keeps it when the request was marked and its
 * operation's answers are only data, caller, language, root and day.
 */
export function keepAnswer(req: RequestLike, res: Response, body: string | Buffer, etag: string): void {
  const pending = res.locals.pendingAnswer as Pending | undefined;
  const operation = res.locals.operation as Operation | undefined;
  if (!pending || !operation || !CACHED_OPERATIONS.has(operation.operationId) || res.locals.noStore) return;
  if (!String(res.getHeader('Content-Type') ?? '').startsWith('application/json')) return;
  if (readsAgainstNow(req, operation)) return;
  const headers = Object.entries(res.getHeaders())
    .filter(([name, value]) => value !== undefined && pending.before.get(name) !== value)
    .map(([name, value]) => [name, typeof value === 'number' ? String(value) : value] as const);
  const { answers, db } = context(req);
  const provable = PROVABLE[operation.operationId];
  const proof = provable && pending.witness.proof(pending.position, provable === 'list');
  const kept = answers.keep(pending.key, {
    version: pending.version,
    validUntil: nextDayStart(now().getTime(), context(req).config.siteTimezone),
    headers: headers as Array<readonly [string, string | string[]]>,
    etag,
    recordVersion: res.locals.version as string | undefined,
    body: typeof body === 'string' ? Buffer.from(body) : body,
    operation,
    proof: proof || undefined, // weighed with the answer now, confirmed below
  });
  if (kept?.proof) void confirm(db, kept.proof, pending.version);
}

/**
 * Confirms a kept answer's proof once the data version is known not to have moved while the answer was made: its
 * statements then all read one state, the one the proof describes. Until then, and if it moved, the answer lives
 * only as long as its data version.
 */
async function confirm(db: Executor, proof: Proof, version: number): Promise<void> {
  try {
    if ((await dataVersion(db)) === version) proof.confirmed = true;
  } catch {
    // the proof stays unconfirmed: nothing is lost but a later hit
  }
}

/**
 * The entry's name: the caller (id, role, an application password's scope), the language, the root, the path and
 * the query with its parameters in one order. Pairs are ordered by their parameter's decoded name (`a`, `a[]` and
 * `%61%5B%5D` alike) and keep their order within it, the only order a parsed query depends on; values stay as sent
 * (two spellings of one value are two entries). Undefined for a name that does not decode: not kept.
 */
function answerKey(req: Parameters<RequestHandler>[0], root: string): string | undefined {
  const who = caller(req);
  const [path, query = ''] = req.originalUrl.split('?', 2);
  const pairs = query.split('&').filter(Boolean);
  if (pairs.length > MAX_PAIRS) return undefined; // the query parser keeps the first 1 000: order would then matter
  const named = pairs.map((pair, i) => ({ pair, name: parameterOf(pair), i }));
  if (named.some(({ name }) => name === undefined)) return undefined;
  named.sort((a, b) => ((a.name as string) < (b.name as string) ? -1 : a.name === b.name ? a.i - b.i : 1));
  const as = who ? `${who.id}:${who.role}:${who.appPassword?.scope ?? ''}` : '-';
  return `${as}|${requestLanguage(req)}|${root}|${path}?${named.map(({ pair }) => pair).join('&')}`;
}

/** The parameter a query pair sets: its decoded name up to the first `[`. */
function parameterOf(pair: string): string | undefined {
  const raw = pair.split('=', 1)[0].replace(/\+/g, ' ');
  try {
    return decodeURIComponent(raw).split('[', 1)[0];
  } catch {
    return undefined;
  }
}

/** Whether the answer compares with the current instant: a relative date, or a parameter read against now. */
function readsAgainstNow(req: RequestLike, operation: Operation): boolean {
  const query = req.query as Record<string, unknown>;
  const dates = dateParameters(req, operation);
  return operation.parameters.some(({ name, in: where }) => {
    if (where !== 'query' || query[name] === undefined) return false;
    if (READ_AGAINST_NOW.has(name)) return isTruthyText(query[name]); // as the service reads it (linked/service.ts)
    if (!dates.has(name)) return false;
    const values = Array.isArray(query[name]) ? (query[name] as unknown[]) : [query[name]];
    return values.some((value) => typeof value !== 'number' && (typeof value !== 'string' || dependsOnNow(value)));
  });
}

/** The query parameters of an operation whose schema names a date format, found once per operation. */
const datesOf = new WeakMap<Operation, Set<string>>();
function dateParameters(req: RequestLike, operation: Operation): Set<string> {
  let names = datesOf.get(operation);
  if (!names) {
    const { document } = context(req).spec;
    const formats = (schema: unknown): string[] => {
      const s = resolve<{ format?: string; oneOf?: unknown[]; anyOf?: unknown[] }>(document, (schema ?? {}) as object);
      return [...(s.format ? [s.format] : []), ...[...(s.oneOf ?? []), ...(s.anyOf ?? [])].flatMap(formats)];
    };
    const dated = operation.parameters.filter((p) => formats(p.schema).some((format) => DATE_FORMATS.has(format)));
    datesOf.set(operation, (names = new Set(dated.map((p) => p.name))));
  }
  return names;
}

/**
 * Whether the request's validators hold for an answer tagged `etag`: `If-None-Match` names it (`held`), else
 * `If-Modified-Since` is not before its `Last-Modified` (`req.fresh`, as Express's `send` reads it).
 */
export function unchanged(req: Request, etag: string): boolean {
  return held(req.headers['if-none-match'], etag) || req.fresh;
}

const NOT_ON_304 = ['Content-Type', 'Content-Length', 'Transfer-Encoding', ...SECURITY_HEADERS];

/**
 * Makes the answer a 304: no content, so neither the headers that describe it nor those that govern how a document
 * is shown (RFC 9110 §15.4.5; a cache keeps those of the answer it revalidates). Computed and kept answers alike.
 */
export function notModified(res: Response): void {
  res.statusCode = 304;
  for (const name of NOT_ON_304) res.removeHeader(name);
}

/** JSON is what the request selects (`text/calendar` selects iCalendar: src/feeds/ical). */
function wantsJson(accept: string | undefined): boolean {
  return !/text\/calendar/i.test(accept ?? '');
}

/**
 * Whether `If-None-Match` names the tag (RFC 9110 §13.1.2, weak comparison). Decided here rather than by Express's
 * `req.fresh`, which answers 200 to any request with `Cache-Control: no-cache`: what `fetch` sends with every
 * conditional request, and a directive for caches, not for the origin.
 */
export function held(ifNoneMatch: string | undefined, tag: string): boolean {
  if (!ifNoneMatch) return false;
  return ifNoneMatch.split(',').some((sent) => {
    const trimmed = sent.trim();
    return trimmed === '*' || trimmed.replace(/^W\//, '') === tag;
  });
}

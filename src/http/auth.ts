/**
 * HTTP Basic authentication on every request, and the coarse capability check of each operation. Wrong credentials
 * are 401 on any route; repeated failures are throttled (429). A verified credential is remembered for a minute (by
 * an HMAC of login and password, never the password itself) so that the slow hash is not paid on every request.
 *
 * Feed keys (http/feed-keys.ts) are remembered the same way, apart from Basic's credentials.
 *
 * The password may be the user's own or one of their application passwords (users/app-passwords.ts). A remembered
 * application password is looked up by id on every request (one primary-key query), so a revocation on any node is
 * refused by every node at the next request; a read-only one (`scope: read`) is 403 on any write.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { context } from './context';
import { ApiError } from '../core/errors';
import { findUserById, findUserByLogin, type UserRow } from '../users/repository';
import { DUMMY_HASH_PROMISE, verifyPassword } from '../users/passwords';
import { can, type Caller, type Capability } from '../users/roles';
import {
  appPasswordUse,
  liveAppPassword,
  noteUse,
  verifyCredential,
  type AppPasswordRow,
} from '../users/app-passwords';
import type { Db } from '../db/types';

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 1_000;
const cacheSecret = randomBytes(32);
const verified = new Map<string, { userId: number; passwordHash: string; appPasswordId?: number; expires: number }>();
const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

export function caller(req: Pick<Request, 'res'>): Caller | undefined {
  return req.res?.locals.caller as Caller | undefined;
}

export const authenticate: RequestHandler = async (req, res, next) => {
  // a request dispatched in-process (src/mcp/dispatch.ts) may start with its caller known: judged as any other
  const who = caller(req) ?? (await identify(req));
  if (!who) return next();
  if (who.appPassword?.scope === 'read' && !READS.has(req.method))
    throw new ApiError(403, 'rest_forbidden', 'app_password_read_only');
  res.locals.caller = who;
  next();
};

/**
 * Who sent a request, by its Basic credentials (undefined: none sent), with the checks and throttle of
 * `authenticate` but no judgement of what the request does: the MCP endpoint (src/mcp/) learns its caller so, then
 * each tool call is judged as the REST request it becomes.
 */
export async function identify(req: Request): Promise<Caller | undefined> {
  const credentials = parseBasic(req.headers.authorization);
  if (credentials === undefined) return undefined;
  if (credentials === null) throw new ApiError(401, 'rest_invalid_authorization', 'invalid_authorization');
  const who = await verifiedCaller(req, credentials.login, credentials.password);
  return { ...who, address: req.ip } satisfies Caller;
}

/** Before validation: 401 for anonymous callers, 403 for callers without the capability (`rest_forbidden`). */
export function authorise(capability: Capability): RequestHandler {
  return (req, _res, next) => {
    const who = caller(req);
    if (!who) throw new ApiError(401, 'rest_forbidden', 'forbidden');
    if (!can(who, capability)) throw new ApiError(403, 'rest_forbidden', 'forbidden');
    next();
  };
}

/** undefined: no Basic credentials sent; null: a malformed Basic header. */
function parseBasic(header: string | undefined): { login: string; password: string } | undefined | null {
  if (!header || !/^basic(\s|$)/i.test(header)) return undefined;
  const decoded = Buffer.from(header.slice(5).trim(), 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  if (colon <= 0) return null;
  return { login: decoded.slice(0, colon), password: decoded.slice(colon + 1) };
}

/**
 * The caller of a login and password, checked once a minute at most: a credential verified in the last minute is
 * remembered (by an HMAC of what it may be used for, login and password), and concurrent checks of one credential
 * share one slow hash. `accept: 'app-password'` takes only an application password (feed keys, http/feed-keys.ts);
 * what it remembers is apart from Basic's, so a user's own password verified by Basic never passes as a key.
 */
export async function verifiedCaller(
  req: Request,
  login: string,
  password: string,
  accept: 'any' | 'app-password' = 'any',
): Promise<Caller> {
  const { db, throttle } = context(req);
  const key = createHmac('sha256', cacheSecret).update(`${accept}\0${login}\0`).update(password).digest('base64');
  const address = req.ip ?? 'unknown';
  const remembered = await rememberedCaller(req, key, login, address);
  if (remembered) return remembered;
  verified.delete(key);
  // concurrent requests with one credential share one check (one point, one slow hash): a client opening many
  // connections at once with the right password is not throttled for it; each still passes its own address's limit
  let pending = checking.get(key);
  if (pending) throttled(req, await throttle.blockedFor(login, address));
  else {
    pending = checkCredential(req, login, password, accept).finally(() => checking.delete(key));
    checking.set(key, pending);
  }
  const { user, app } = await pending;
  remember(key, user, app);
  return callerOf(db, user, app, address);
}

/** Credentials being checked now, by the key of `verified`. */
const checking = new Map<string, Promise<Verified>>();

interface Verified {
  user: UserRow;
  app?: AppPasswordRow;
}

/**
 * Checks a login and password: the throttle's point taken first (so concurrent guesses cannot all pass a
 * check-then-count), then one slow hash whatever the user's number of application passwords (D60); 401 or 429 in
 * the WordPress shape. `accept: 'app-password'` takes only an application password (feed keys, http/feed-keys.ts).
 */
export async function checkCredential(
  req: Request,
  login: string,
  password: string,
  accept: 'any' | 'app-password',
): Promise<Verified> {
  const { db, metrics, throttle } = context(req);
  const address = req.ip ?? 'unknown';
  throttled(req, await throttle.take(login, address));
  metrics.counter('auth_password_checks_total', 'Passwords checked with the slow hash (one per attempt)').inc();
  // a login with a NUL character cannot exist (and PostgreSQL text cannot hold one): check it like an unknown one
  const user = login.includes('\u0000') ? undefined : await findUserByLogin(db, login);
  const { ok, app } = user
    ? await verifyCredential(db, user.id, password, user.password_hash)
    : { ok: await verifyPassword(password, await DUMMY_HASH_PROMISE), app: undefined };
  if (!user || !ok || (accept === 'app-password' && !app)) {
    metrics.loginFailed(user ? 'incorrect_password' : 'invalid_username');
    throw user
      ? new ApiError(401, 'incorrect_password', 'incorrect_password', { login })
      : new ApiError(401, 'invalid_username', 'invalid_username');
  }
  await throttle.succeeded(login, address);
  return { user, app };
}

/**
 * A credential verified in the last minute, still valid. The throttle is asked first, even then: another node may
 * have counted failures meanwhile.
 */
async function rememberedCaller(req: Request, key: string, login: string, address: string) {
  const cached = verified.get(key);
  if (!cached || cached.expires <= Date.now()) return undefined;
  const { db, throttle } = context(req);
  throttled(req, await throttle.blockedFor(login, address));
  const user = await findUserById(db, cached.userId);
  const app = cached.appPasswordId === undefined ? undefined : await liveAppPassword(db, cached.appPasswordId);
  const valid = user?.password_hash === cached.passwordHash && user.login === login;
  if (!user || !valid || (cached.appPasswordId !== undefined && !app)) return undefined;
  return callerOf(db, user, app, address);
}

/** 429 with `Retry-After` when the throttle says to wait. */
function throttled(req: Request, wait: number): void {
  if (wait <= 0) return;
  context(req).metrics.loginThrottled();
  throw new ApiError(429, 'rest_too_many_requests', 'too_many_requests', { seconds: wait }, { retry_after: wait });
}

async function callerOf(db: Db, user: UserRow, app: AppPasswordRow | undefined, address: string): Promise<Caller> {
  if (!app) return { id: user.id, login: user.login, role: user.role };
  await noteUse(db, app, address);
  return { id: user.id, login: user.login, role: user.role, appPassword: appPasswordUse(app) };
}

function remember(key: string, user: UserRow, app: AppPasswordRow | undefined): void {
  if (verified.size >= CACHE_MAX) verified.delete(verified.keys().next().value as string);
  verified.set(key, {
    userId: user.id,
    passwordHash: user.password_hash,
    appPasswordId: app?.id,
    expires: Date.now() + CACHE_TTL_MS,
  });
}

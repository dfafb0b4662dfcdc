/**
 * HTTP Basic authentication on every request, and the coarse capability check of each operation. Wrong credentials
 * are 401 on any route; repeated failures are throttled (429). A verified credential is remembered for a minute (by
 * an HMAC of login and password, never the password itself) so that the slow hash is not paid on every request.
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
  matchAppPassword,
  noteUse,
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
  const credentials = parseBasic(req.headers.authorization);
  if (credentials === undefined) return next();
  if (credentials === null) throw new ApiError(401, 'rest_invalid_authorization', 'invalid_authorization');
  const who = await verify(req, credentials.login, credentials.password);
  if (who.appPassword?.scope === 'read' && !READS.has(req.method))
    throw new ApiError(403, 'rest_forbidden', 'app_password_read_only');
  res.locals.caller = { ...who, address: req.ip } satisfies Caller;
  next();
};

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

async function verify(req: Request, login: string, password: string): Promise<Caller> {
  const { db, throttle, metrics } = context(req);
  const key = createHmac('sha256', cacheSecret).update(login).update('\0').update(password).digest('base64');
  // the throttle first, even for a remembered credential: another node may have counted failures meanwhile
  const address = req.ip ?? 'unknown';
  const wait = await throttle.blockedFor(login, address);
  if (wait > 0) {
    metrics.loginThrottled();
    throw new ApiError(429, 'rest_too_many_requests', 'too_many_requests', { seconds: wait }, { retry_after: wait });
  }

  const cached = verified.get(key);
  if (cached && cached.expires > Date.now()) {
    const user = await findUserById(db, cached.userId);
    const app = cached.appPasswordId === undefined ? undefined : await liveAppPassword(db, cached.appPasswordId);
    if (
      user &&
      user.password_hash === cached.passwordHash &&
      user.login === login &&
      (cached.appPasswordId === undefined || app)
    ) {
      return callerOf(db, user, app, address);
    }
  }
  verified.delete(key);

  // a login with a NUL character cannot exist (and PostgreSQL text cannot hold one): check it like an unknown one
  const user = login.includes('\u0000') ? undefined : await findUserByLogin(db, login);
  const ok = await verifyPassword(password, user?.password_hash ?? (await DUMMY_HASH_PROMISE));
  const app = user && !ok ? await matchAppPassword(db, user.id, password) : undefined;
  if (!user || !(ok || app)) {
    await throttle.recordFailure(login, address);
    metrics.loginFailed(user ? 'incorrect_password' : 'invalid_username');
    throw user
      ? new ApiError(401, 'incorrect_password', 'incorrect_password', { login })
      : new ApiError(401, 'invalid_username', 'invalid_username');
  }
  await throttle.recordSuccess(login, address);
  remember(key, user, app);
  return callerOf(db, user, app, address);
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

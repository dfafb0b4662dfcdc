/**
 * HTTP Basic authentication on every request, and the coarse capability check of each operation. Wrong credentials
 * are 401 on any route; repeated failures are throttled (429). A verified credential is remembered for a minute (by
 * an HMAC of login and password, never the password itself) so that the slow hash is not paid on every request.
 */
import { createHmac, randomBytes } from 'node:crypto';
import type { Request, RequestHandler } from 'express';
import { context } from './context';
import { ApiError } from './errors';
import { findUserById, findUserByLogin, type UserRow } from '../users/repository';
import { DUMMY_HASH_PROMISE, verifyPassword } from '../users/passwords';
import { can, type Caller, type Capability } from '../users/roles';

const CACHE_TTL_MS = 60_000;
const CACHE_MAX = 1_000;
const cacheSecret = randomBytes(32);
const verified = new Map<string, { userId: number; passwordHash: string; expires: number }>();

export function caller(req: Pick<Request, 'res'>): Caller | undefined {
  return req.res?.locals.caller as Caller | undefined;
}

export const authenticate: RequestHandler = async (req, res, next) => {
  const credentials = parseBasic(req.headers.authorization);
  if (credentials === undefined) return next();
  if (credentials === null) throw new ApiError(401, 'rest_invalid_authorization', 'invalid_authorization');
  const user = await verify(req, credentials.login, credentials.password);
  res.locals.caller = { id: user.id, login: user.login, role: user.role } satisfies Caller;
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

async function verify(req: Request, login: string, password: string): Promise<UserRow> {
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
    if (user && user.password_hash === cached.passwordHash && user.login === login) return user;
  }
  verified.delete(key);

  // a login with a NUL character cannot exist (and PostgreSQL text cannot hold one): check it like an unknown one
  const user = login.includes('\u0000') ? undefined : await findUserByLogin(db, login);
  const ok = await verifyPassword(password, user?.password_hash ?? (await DUMMY_HASH_PROMISE));
  if (!user || !ok) {
    await throttle.recordFailure(login, address);
    metrics.loginFailed(user ? 'incorrect_password' : 'invalid_username');
    throw user
      ? new ApiError(401, 'incorrect_password', 'incorrect_password', { login })
      : new ApiError(401, 'invalid_username', 'invalid_username');
  }
  await throttle.recordSuccess(login, address);
  remember(key, user);
  return user;
}

function remember(key: string, user: UserRow): void {
  if (verified.size >= CACHE_MAX) verified.delete(verified.keys().next().value as string);
  verified.set(key, { userId: user.id, passwordHash: user.password_hash, expires: Date.now() + CACHE_TTL_MS });
}

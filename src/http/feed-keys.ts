/**
 * Feed keys (issue 21, docs/decisions.md D69): calendar apps cannot send an `Authorization` header, so the calendar
 * reads (`/events/ical`, `/events/{id}/ical`, `/events/by-slug/{slug}/ical` and the `text/calendar` form of
 * `GET /events`, `GET /events/{id}`, `GET /events/by-slug/{slug}`) take `?key=<login>:<application password>`.
 *
 * Only application passwords: a URL ends up in histories and proxy logs, where a user's own password must never be.
 * The key is checked like Basic credentials otherwise (the same throttle, failures counted, an unknown login costs a
 * hash), then the caller is read-only whatever the password's scope; the answer is `no-store` (an authenticated
 * caller, http/caching.ts) and `key=` is masked in logged URLs (http/request-log.ts). Kept apart from http/auth.ts:
 * the key never reaches Basic's remembered credentials, so each request pays the hash (calendar apps poll rarely).
 */
import type { Request, RequestHandler } from 'express';
import { caller } from './auth';
import { context } from './context';
import { ApiError } from '../core/errors';
import { findUserByLogin } from '../users/repository';
import { DUMMY_HASH_PROMISE, verifyPassword } from '../users/passwords';
import type { Caller } from '../users/roles';
import { appPasswordUse, matchAppPassword, noteUse } from '../users/app-passwords';

/**
 * Before the ETag and validation of a calendar read: authenticates `key` when the request is answered as a
 * calendar (`calendar(req)`), no Basic caller came first, and the key is there.
 */
export function feedKey(calendar: (req: Request) => boolean): RequestHandler {
  return async (req, res, next) => {
    const key = (req.query as { key?: unknown }).key;
    if (key === undefined || caller(req) || !calendar(req)) return next();
    if (typeof key !== 'string') throw new ApiError(401, 'rest_invalid_authorization', 'invalid_authorization');
    res.locals.caller = { ...(await verifyKey(req, key)), address: req.ip } satisfies Caller;
    next();
  };
}

async function verifyKey(req: Request, key: string): Promise<Caller> {
  const colon = key.indexOf(':');
  if (colon <= 0) throw new ApiError(401, 'rest_invalid_authorization', 'invalid_authorization');
  const { db, throttle, metrics } = context(req);
  const [login, password] = [key.slice(0, colon), key.slice(colon + 1)];
  const address = req.ip ?? 'unknown';
  const wait = await throttle.blockedFor(login, address);
  if (wait > 0) {
    metrics.loginThrottled();
    throw new ApiError(429, 'rest_too_many_requests', 'too_many_requests', { seconds: wait }, { retry_after: wait });
  }
  // a login with a NUL character cannot exist (and PostgreSQL text cannot hold one)
  const user = login.includes('\u0000') ? undefined : await findUserByLogin(db, login);
  const app = user && (await matchAppPassword(db, user.id, password));
  if (!user || !app) {
    if (!user) await verifyPassword(password, await DUMMY_HASH_PROMISE); // an unknown login costs a hash too
    await throttle.recordFailure(login, address);
    metrics.loginFailed(user ? 'incorrect_password' : 'invalid_username');
    throw user
      ? new ApiError(401, 'incorrect_password', 'incorrect_password', { login })
      : new ApiError(401, 'invalid_username', 'invalid_username');
  }
  await throttle.recordSuccess(login, address);
  await noteUse(db, app, address);
  // read-only whatever the password's scope: a key only ever reads a calendar
  return { id: user.id, login: user.login, role: user.role, appPassword: { ...appPasswordUse(app), scope: 'read' } };
}

/**
 * Feed keys (docs/decisions.md D69): calendar apps cannot send an `Authorization` header, so the calendar
 * reads (`/events/ical`, `/events/ical/{id}`, `/events/ical/by-slug/{slug}` and the `text/calendar` form of
 * `GET /events`, `GET /events/{id}`, `GET /events/by-slug/{slug}`) take `?key=<login>:<application password>`.
 *
 * Only application passwords: a URL ends up in histories and proxy logs, where a user's own password must never be.
 * The key is checked by Basic's own check (http/auth.ts `verifiedCaller`: the same throttle, one slow hash, failures
 * counted) and remembered as Basic remembers a credential (a minute, apart from Basic's, refused at once when
 * revoked), so a calendar app polling pays one hash a minute at most. Each key then takes one request from its own
 * allowance (`FEED_KEY_MAX_REQUESTS` a minute, 429 with `Retry-After` beyond). The caller is read-only whatever the
 * password's scope; the answer is `no-store` (an authenticated caller, http/caching.ts) and `key=` is masked in
 * logged URLs (http/request-log.ts).
 */
import type { Request, RequestHandler } from 'express';
import { caller, verifiedCaller } from './auth';
import { context } from './context';
import { ApiError } from '../core/errors';
import type { Caller } from '../users/roles';
import type { AppPasswordUse } from '../users/app-passwords';

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
  const who = await verifiedCaller(req, key.slice(0, colon), key.slice(colon + 1), 'app-password');
  const app = who.appPassword as AppPasswordUse; // `app-password` accepts nothing else
  const wait = await context(req).throttle.keyedRequest(app.id);
  if (wait > 0)
    throw new ApiError(429, 'rest_too_many_requests', 'too_many_requests', { seconds: wait }, { retry_after: wait });
  // read-only whatever the password's scope: a key only ever reads a calendar
  return { ...who, appPassword: { ...app, scope: 'read' } };
}

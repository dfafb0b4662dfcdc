/**
 * Feed keys (docs/decisions.md D69): calendar apps cannot send an `Authorization` header, so the calendar
 * reads (`/events/ical`, `/events/ical/{id}`, `/events/ical/by-slug/{slug}` and the `text/calendar` form of
 * `GET /events`, `GET /events/{id}`, `GET /events/by-slug/{slug}`) take `?key=<login>:<application password>`.
 *
 * Only application passwords: a URL ends up in histories and proxy logs, where a user's own password must never be.
 * The key is checked by Basic's own check (http/auth.ts `checkCredential`: the same throttle, one slow hash, failures
 * counted), then the caller is read-only whatever the password's scope; the answer is `no-store` (an authenticated
 * caller, http/caching.ts) and `key=` is masked in logged URLs (http/request-log.ts). A key never reaches Basic's
 * remembered credentials, so each keyed read pays the one hash (calendar apps poll rarely).
 */
import type { Request, RequestHandler } from 'express';
import { caller, checkCredential } from './auth';
import { context } from './context';
import { ApiError } from '../core/errors';
import type { Caller } from '../users/roles';
import { appPasswordUse, noteUse, type AppPasswordRow } from '../users/app-passwords';

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
  const { db } = context(req);
  const [login, password] = [key.slice(0, colon), key.slice(colon + 1)];
  const address = req.ip ?? 'unknown';
  const { user, app } = await checkCredential(req, login, password, 'app-password');
  await noteUse(db, app as AppPasswordRow, address);
  // read-only whatever the password's scope: a key only ever reads a calendar
  const scoped = { ...appPasswordUse(app as AppPasswordRow), scope: 'read' as const };
  return { id: user.id, login: user.login, role: user.role, appPassword: scoped };
}

/**
 * HTTP handlers of the application password routes: your own (`/users/me/…`) or, for administrators and the user
 * themselves, a user's (`/users/{id}/…`). Every role holds `manage_app_passwords`; whose passwords a caller may
 * manage is checked here.
 */
import type { HandlerTable, TypedRequest, TypedResponse } from '../../http/handler';
import { caller } from '../../http/auth';
import { context } from '../../http/context';
import { ApiError, invalidParam } from '../../core/errors';
import type { Caller } from '../../users/roles';
import { findUserById } from '../../users/repository';
import * as service from './service';
import type { AppPasswordRow } from '../../users/app-passwords';
import { utcTextToIso } from '../../db/dialect';

type Req<O extends keyof HandlerTable> = TypedRequest<O>;

function who(req: TypedRequest<keyof HandlerTable>): Caller {
  const found = caller(req);
  if (!found) throw new ApiError(401, 'rest_forbidden', 'forbidden');
  return found;
}

/** The user whose passwords a route names: the caller, or `{id}` for administrators and the user themselves. */
async function owner(req: TypedRequest<keyof HandlerTable>): Promise<number> {
  const me = who(req);
  const id = (req.params as { id?: number }).id;
  if (id === undefined || id === me.id) return me.id;
  if (me.role !== 'administrator') throw new ApiError(403, 'rest_forbidden', 'forbidden');
  if (!(await findUserById(context(req).db, id))) throw new ApiError(404, 'rest_user_invalid_id', 'user_not_found');
  return id;
}

const iso = (utc: string | null) => (utc === null ? null : utcTextToIso(utc));

function toWire(row: AppPasswordRow) {
  return {
    uuid: row.uuid,
    name: row.name,
    created: iso(row.created_utc) as string,
    last_used: iso(row.last_used_utc),
    last_ip: row.last_ip,
    scope: row.scope,
  };
}

const handlers = {
  async list(
    req: Req<'listMyAppPasswords' | 'listUserAppPasswords'>,
    res: TypedResponse<'listMyAppPasswords' | 'listUserAppPasswords'>,
  ) {
    res.json((await service.listFor(context(req).db, await owner(req))).map(toWire));
  },
  async create(
    req: Req<'createMyAppPassword' | 'createUserAppPassword'>,
    res: TypedResponse<'createMyAppPassword' | 'createUserAppPassword'>,
  ) {
    const userId = await owner(req);
    const name = (req.body.name ?? '').trim();
    if (!name) throw invalidParam('name', 'app_password_name_empty');
    const { row, password } = await service.create(context(req).db, who(req), userId, name, req.body.scope ?? null);
    res.status(201).json({ ...toWire(row), password });
  },
  async revokeAll(
    req: Req<'revokeMyAppPasswords' | 'revokeUserAppPasswords'>,
    res: TypedResponse<'revokeMyAppPasswords' | 'revokeUserAppPasswords'>,
  ) {
    const rows = await service.revoke(context(req).db, who(req), await owner(req));
    res.json({ deleted: true, count: rows.length });
  },
  async revokeOne(
    req: Req<'revokeMyAppPassword' | 'revokeUserAppPassword'>,
    res: TypedResponse<'revokeMyAppPassword' | 'revokeUserAppPassword'>,
  ) {
    const [row] = await service.revoke(context(req).db, who(req), await owner(req), req.params.uuid);
    if (!row) throw new ApiError(404, 'rest_application_password_not_found', 'app_password_not_found');
    res.json({ deleted: true, previous: toWire(row) });
  },
};

export const appPasswordHandlers = {
  listMyAppPasswords: handlers.list,
  createMyAppPassword: handlers.create,
  revokeMyAppPasswords: handlers.revokeAll,
  revokeMyAppPassword: handlers.revokeOne,
  listUserAppPasswords: handlers.list,
  createUserAppPassword: handlers.create,
  revokeUserAppPasswords: handlers.revokeAll,
  revokeUserAppPassword: handlers.revokeOne,
} satisfies Partial<HandlerTable>;

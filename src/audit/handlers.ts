/** `GET /audit`: the trail for administrators, newest first, filtered and paged like every list. */
import type { HandlerTable, TypedRequest, TypedResponse } from '../http/handler';
import { context } from '../http/context';
import { invalidParam } from '../core/errors';
import { paging, sendList } from '../http/paging';
import { listAudit, type AuditRow } from './repository';
import { utcAt, utcTextToIso } from '../db/dialect';

/** An instant parameter as stored UTC text; 400 naming it when it is no date. */
function utcParam(name: string, value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  const date = new Date(value);
  if (Number.isNaN(date.getTime())) throw invalidParam(name, 'date_invalid');
  return utcAt(date);
}

function toWire(row: AuditRow) {
  return {
    id: row.id,
    date_utc: utcTextToIso(row.at_utc),
    user: row.user_id,
    login: row.login,
    application_password: row.app_password,
    address: row.address,
    via: row.via,
    operation: row.operation,
    resource: row.resource,
    record: row.record_id,
    changes: JSON.parse(row.changes) as Record<string, { old?: unknown; new?: unknown }>,
  };
}

export const auditHandlers = {
  async listAudit(req: TypedRequest<'listAudit'>, res: TypedResponse<'listAudit'>) {
    // administrators only: the route's capability (`manage_options`), checked before validation
    const page = paging(req.query);
    const { user, resource, id } = req.query;
    const filters = {
      user,
      resource,
      id: id === undefined ? undefined : String(id),
      after: utcParam('after', req.query.after),
      before: utcParam('before', req.query.before),
    };
    const { rows, total } = await listAudit(context(req).db, filters, page.perPage, page.offset);
    sendList(req, res, { key: 'audit', items: rows.map(toWire), total, paging: page });
  },
} satisfies Partial<HandlerTable>;

/** HTTP handlers of the event routes: resolve the event, check, call the service, answer the wire shape. */
import type { Response } from 'express';
import type { HandlerTable, TypedRequest } from '../../http/handler';
import { caller } from '../../http/auth';
import { context } from '../../http/context';
import { requestLanguage } from '../../http/language';
import { paging, sendList } from '../../http/paging';
import { isTrue } from '../../http/params';
import { lastModified } from '../../http/caching';
import type { Caller } from '../../users/roles';
import { renderContext } from '../posts/mapper';
import type { Executor } from '../../db/knex';
import { eventFilters } from './list';
import { translatePosts } from '../translations';
import { loadRelations, toWireEvent } from './mapper';
import * as repo from './repository';
import * as service from './service';
import { sendEventCalendar, sendEventListCalendar, wantsCalendar } from '../../feeds/ical/handlers';
import type { EventRow } from './repository';

type Req<O extends keyof HandlerTable> = TypedRequest<O>;
type ById = 'getEvent' | 'updateEvent' | 'replaceEvent' | 'patchEvent' | 'deleteEvent';
type BySlug = 'getEventBySlug' | 'updateEventBySlug' | 'replaceEventBySlug' | 'patchEventBySlug' | 'deleteEventBySlug';

/** The event a by-id or by-slug route names. */
function target(req: Req<ById> | Req<BySlug>): Promise<EventRow> {
  const { db } = context(req);
  return 'id' in req.params ? service.eventById(db, req.params.id) : service.eventBySlug(db, req.params.slug);
}

async function send(req: Req<keyof HandlerTable>, res: Response, db: Executor, row: EventRow, status = 200, single = false): Promise<void> {
  const language = requestLanguage(req);
  const [translated] = await translatePosts(db, [row], language);
  const relations = await loadRelations(db, [translated], language);
  res.status(status).json(toWireEvent(renderContext(req), translated, relations, { single }));
}

async function reload(db: Executor, id: number): Promise<EventRow> {
  return (await repo.findEvent(db, id)) as EventRow;
}

const handlers = {
  async list(req: Req<'listEvents'>, res: Response) {
    if (wantsCalendar(req)) return sendEventListCalendar(req, res);
    const { db, config } = context(req);
    const who = caller(req);
    const page = paging(req.query);
    const language = requestLanguage(req);
    const filters = await eventFilters(db, config, who, req.query, language);
    const found = await repo.listEvents(db, filters, page.perPage, page.offset);
    const rows = await translatePosts(db, found.rows, language);
    const relations = await loadRelations(db, rows, language);
    const total = found.total;
    const ctx = renderContext(req);
    const items = rows.map((row) => toWireEvent(ctx, row, relations, { blanked: !service.unlocked(row, who, req.query.password) }));
    sendList(req, res, { key: 'events', items, total, paging: page });
  },
  async create(req: Req<'createEvent'>, res: Response) {
    const { db, config } = context(req);
    const id = await service.createEvent(db, config, caller(req) as Caller, req.body, requestLanguage(req));
    await send(req, res, db, await reload(db, id), 201);
  },
  async get(req: Req<'getEvent' | 'getEventBySlug'>, res: Response) {
    if (wantsCalendar(req)) return sendEventCalendar(req, res);
    const row = await target(req);
    const password = 'password' in req.query ? req.query.password : undefined;
    service.assertReadable(row, caller(req), password);
    lastModified(res, row.modified_utc);
    await send(req, res, context(req).db, row, 200, true);
  },
  async update(req: Req<'updateEvent' | 'replaceEvent' | 'patchEvent' | 'updateEventBySlug' | 'replaceEventBySlug' | 'patchEventBySlug'>, res: Response) {
    const { db, config } = context(req);
    const row = await target(req);
    await service.updateEvent(db, config, caller(req) as Caller, row, req.body ?? {}, requestLanguage(req));
    await send(req, res, db, await reload(db, row.id));
  },
  async remove(req: Req<'deleteEvent' | 'deleteEventBySlug'>, res: Response) {
    const { db } = context(req);
    const row = await target(req);
    const force = req.query.force !== undefined && isTrue(req.query.force);
    await send(req, res, db, await service.deleteEvent(db, caller(req) as Caller, row, force));
  },
};

export const eventHandlers = {
  listEvents: handlers.list,
  createEvent: handlers.create,
  getEvent: handlers.get,
  updateEvent: handlers.update,
  replaceEvent: handlers.update,
  patchEvent: handlers.update,
  deleteEvent: handlers.remove,
  getEventBySlug: handlers.get,
  updateEventBySlug: handlers.update,
  replaceEventBySlug: handlers.update,
  patchEventBySlug: handlers.update,
  deleteEventBySlug: handlers.remove,
} satisfies Partial<HandlerTable>;

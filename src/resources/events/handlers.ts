/** HTTP handlers of the event routes: resolve the event, check, call the service, answer the wire shape. */
import type { Response } from 'express';
import type { HandlerTable, TypedRequest } from '../../http/handler';
import { caller } from '../../http/auth';
import { context } from '../../http/context';
import { requestLanguage } from '../../http/language';
import { paging, sendList } from '../../http/paging';
import { isTrue } from '../../http/params';
import { singleRecord } from '../../http/caching';
import { precondition } from '../../http/preconditions';
import { sendCreated, type CreatedRenderers, type RenderCreated } from '../../http/creates';
import { claimCreated } from '../../http/idempotency';
import type { Caller } from '../../users/roles';
import { renderContext } from '../posts/mapper';
import type { Executor } from '../../db/knex';
import { eventFilters } from './list';
import type { EventFilters } from './repository';
import { withModifiedRange } from '../posts/modified';
import { translatePosts } from '../translations';
import { loadRelations, toWireEvent } from './mapper';
import * as repo from './repository';
import * as service from './service';
import * as series from '../series/service';
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

/** One event in the wire shape, in the request's language (`single`: as a single read shows it, with `json_ld`). */
async function wire(req: Req<keyof HandlerTable>, db: Executor, row: EventRow, single: boolean) {
  const language = requestLanguage(req);
  const [translated] = await translatePosts(db, [row], language);
  const relations = await loadRelations(db, [translated], language);
  return toWireEvent(renderContext(req), translated, relations, { single });
}

async function send(
  req: Req<keyof HandlerTable>,
  res: Response,
  db: Executor,
  row: EventRow,
  single = false,
): Promise<void> {
  res.json(await wire(req, db, row, single));
}

/** An event as its create answers it (tec-compat: the full object without `json_ld`). */
const renderCreated: RenderCreated = async (req, id) => {
  const { db } = context(req);
  const row = await repo.findEvent(db, id);
  return row && wire(req, db, row, false);
};

async function reload(db: Executor, id: number): Promise<EventRow> {
  return (await repo.findEvent(db, id)) as EventRow;
}

/** A page of events (`GET /events`, `/events/{id}/occurrences`), open-ended series materialised to its window first. */
async function sendEvents(
  req: Req<'listEvents' | 'listEventOccurrences'>,
  res: Response,
  filters: EventFilters,
  password: string | undefined,
  path?: string,
): Promise<void> {
  const { db, config } = context(req);
  const who = caller(req);
  const page = paging(req.query);
  const language = requestLanguage(req);
  await series.ensureHorizon(db, config, filters.endTo);
  const found = await repo.listEvents(db, filters, page.perPage, page.offset);
  const rows = await translatePosts(db, found.rows, language);
  const relations = await loadRelations(db, rows, language);
  const ctx = renderContext(req);
  const items = rows.map((row) => toWireEvent(ctx, row, relations, { blanked: !service.unlocked(row, who, password) }));
  sendList(req, res, { key: 'events', items, total: found.total, paging: page, path });
}

/** `recurrence_scope` from the query, else the body. */
function scopeOf(req: { query: object; body?: unknown }): series.Scope | undefined {
  const fromQuery = (req.query as { recurrence_scope?: unknown }).recurrence_scope;
  const fromBody = (req.body as { recurrence_scope?: unknown } | undefined)?.recurrence_scope;
  return series.assertScope(fromQuery ?? fromBody);
}

const handlers = {
  async list(req: Req<'listEvents'>, res: Response) {
    if (wantsCalendar(req)) return sendEventListCalendar(req, res);
    const { db, config } = context(req);
    const filters = await eventFilters(db, config, caller(req), req.query, requestLanguage(req));
    await sendEvents(req, res, withModifiedRange(filters, req.query, config.siteTimezone), req.query.password);
  },
  async occurrences(req: Req<'listEventOccurrences'>, res: Response) {
    const { db, config } = context(req);
    const row = await service.eventById(db, req.params.id);
    const filters = await eventFilters(db, config, caller(req), req.query, requestLanguage(req));
    const seriesId = await series.seriesIdOf(db, row.id);
    await sendEvents(req, res, { ...filters, seriesId }, req.query.password, `events/${row.id}/occurrences`);
  },
  async create(req: Req<'createEvent'>, res: Response) {
    const { db, config } = context(req);
    const id = await service.createEvent(
      db,
      config,
      caller(req) as Caller,
      req.body,
      requestLanguage(req),
      (trx, made) => claimCreated(trx, req, { type: 'event', id: made }),
    );
    await sendCreated(req, res, { type: 'event', id }, renderCreated);
  },
  async get(req: Req<'getEvent' | 'getEventBySlug'>, res: Response) {
    if (wantsCalendar(req)) return sendEventCalendar(req, res);
    const row = await target(req);
    const password = 'password' in req.query ? req.query.password : undefined;
    service.assertReadable(row, caller(req), password);
    singleRecord(res, row);
    await send(req, res, context(req).db, row, true);
  },
  async update(
    req: Req<
      'updateEvent' | 'replaceEvent' | 'patchEvent' | 'updateEventBySlug' | 'replaceEventBySlug' | 'patchEventBySlug'
    >,
    res: Response,
  ) {
    const { db, config } = context(req);
    const row = await target(req);
    const written = await service.updateEvent(
      db,
      config,
      caller(req) as Caller,
      row,
      req.body ?? {},
      requestLanguage(req),
      scopeOf(req),
      precondition(req),
    );
    // the event asked for, as the series write left it (the series event when `all` regenerated it away)
    await send(req, res, db, (await repo.findEvent(db, row.id)) ?? (await reload(db, written)));
  },
  async remove(req: Req<'deleteEvent' | 'deleteEventBySlug'>, res: Response) {
    const { db } = context(req);
    const row = await target(req);
    const force = req.query.force !== undefined && isTrue(req.query.force);
    await send(
      req,
      res,
      db,
      await service.deleteEvent(db, caller(req) as Caller, row, force, scopeOf(req), precondition(req)),
    );
  },
};

export const eventHandlers = {
  listEvents: handlers.list,
  listEventOccurrences: handlers.occurrences,
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

export const eventRenderers = { event: renderCreated } satisfies Partial<CreatedRenderers>;

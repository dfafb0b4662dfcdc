/** HTTP handlers of the event routes (JSON): resolve the event, check, call the service, answer the wire shape. */
import type { HandlerTable, TypedRequest, TypedResponse } from '../../http/handler';
import { caller } from '../../http/auth';
import { context } from '../../http/context';
import { answerList } from '../../http/lists';
import { readerOf, writerOf } from '../../http/reader';
import { sendJsonBytes } from '../../http/json-bytes';
import { isTrue } from '../../core/flags';
import { singleRecord, writtenRecord } from '../../http/caching';
import { precondition } from '../../http/preconditions';
import { sendCreatedAndRead, type CreatedRenderers, type RenderCreated } from '../../http/creates';
import { claimCreated } from '../../http/idempotency';
import type { Caller } from '../../users/roles';
import { createdEventAnswers, eventBytes, renderEvents, type EventView } from '../records';
import * as series from '../series/service';
import { seriesIdOf } from '../series/wire';
import { assertReadable, eventById, eventBySlug, owned } from './access';
import { allowRecord } from '../../http/allow';
import { EVENT_LIST, eventListBytes } from './list';
import type { EventRow } from './repository';
import type { components } from '../../../generated/schema';
import * as repo from './repository';
import * as service from './service';

type Event = components['schemas']['Event'];
type Req<O extends keyof HandlerTable> = TypedRequest<O>;
type Res<O extends keyof HandlerTable> = TypedResponse<O>;
type ById = 'getEvent' | 'updateEvent' | 'replaceEvent' | 'patchEvent' | 'deleteEvent';
type BySlug = 'getEventBySlug' | 'updateEventBySlug' | 'replaceEventBySlug' | 'patchEventBySlug' | 'deleteEventBySlug';
type Update = 'updateEvent' | 'replaceEvent' | 'patchEvent' | 'updateEventBySlug' | 'replaceEventBySlug';

/** The event a by-id or by-slug route names. */
function target(req: Req<ById> | Req<BySlug>): Promise<EventRow> {
  const { db } = context(req);
  return 'id' in req.params ? eventById(db, req.params.id) : eventBySlug(db, req.params.slug);
}

/** Answers one event as the caller sees it (`single`: as a single read shows it, with `json_ld`). */
async function send(req: Req<keyof HandlerTable>, res: Res<ById | BySlug>, row: EventRow, view: EventView = {}) {
  const [event] = await eventBytes(readerOf(req), [row], view);
  sendJsonBytes(res, event);
}

/** An event as its create answers it (docs/compatibility.md: the full object without `json_ld`). */
const renderCreated: RenderCreated<Event> = async (req, id) => {
  const row = await repo.findEvent(context(req).db, id);
  return row && (await renderEvents(readerOf(req), [row]))[0];
};

/** `GET /events`; reads never materialise: open-ended series list as far as the daily job extended them (D65). */
const EVENTS = { source: EVENT_LIST, represent: eventListBytes, key: 'events' } as const;

/** `recurrence_scope` from the query, else the body. */
function scopeOf(req: { query: object; body?: unknown }): series.Scope | undefined {
  const fromQuery = (req.query as { recurrence_scope?: unknown }).recurrence_scope;
  const fromBody = (req.body as { recurrence_scope?: unknown } | undefined)?.recurrence_scope;
  return series.assertScope(fromQuery ?? fromBody);
}

const handlers = {
  async list(req: Req<'listEvents'>, res: Res<'listEvents'>) {
    await answerList(req, res, EVENTS);
  },
  /** The events of a series: the list, restricted to the series (`seriesIdOf` a series event or an occurrence). */
  async occurrences(req: Req<'listEventOccurrences'>, res: Res<'listEventOccurrences'>) {
    const { db } = context(req);
    const row = await eventById(db, req.params.id);
    const seriesId = await seriesIdOf(db, row.id);
    const source = {
      ...EVENT_LIST,
      filters: async (...args: Parameters<typeof EVENT_LIST.filters>) => ({
        ...(await EVENT_LIST.filters(...args)),
        seriesId,
      }),
    };
    await answerList(req, res, { ...EVENTS, source }, `events/occurrences/${row.id}`);
  },
  async create(req: Req<'createEvent'>, res: Res<'createEvent'>) {
    const onCreated = (trx: Parameters<typeof claimCreated>[0], id: number) =>
      claimCreated(trx, req, { type: 'event', id });
    const id = await service.createEvent(context(req), writerOf(req), req.body, onCreated);
    await sendCreatedAndRead(req, res, { type: 'event', id }, (r, made) => createdEventAnswers(readerOf(r), made));
  },
  async get(req: Req<'getEvent' | 'getEventBySlug'>, res: Res<'getEvent' | 'getEventBySlug'>) {
    const row = await target(req);
    const password = 'password' in req.query ? req.query.password : undefined;
    allowRecord(res, caller(req), 'events', owned(row)); // on a refusal too, as WordPress sends it
    assertReadable(row, caller(req), password);
    singleRecord(res, row);
    await send(req, res, row, { single: true });
  },
  async update(req: Req<Update | 'patchEventBySlug'>, res: Res<Update | 'patchEventBySlug'>) {
    const { db } = context(req);
    const row = await target(req);
    const expect = precondition(req);
    const written = await service.updateEvent(context(req), writerOf(req), row, req.body ?? {}, {
      scope: scopeOf(req),
      expect,
    });
    await writtenRecord(req, res, 'posts', row.id); // when `all` regenerated it away, none
    // the event asked for, as the series write left it (the series event when `all` regenerated it away)
    await send(req, res, ((await repo.findEvent(db, row.id)) ?? (await repo.findEvent(db, written))) as EventRow);
  },
  async remove(req: Req<'deleteEvent' | 'deleteEventBySlug'>, res: Res<'deleteEvent' | 'deleteEventBySlug'>) {
    const row = await target(req);
    const force = req.query.force !== undefined && isTrue(req.query.force);
    const options = { force, scope: scopeOf(req), expect: precondition(req) };
    const gone = await service.deleteEvent(context(req), caller(req) as Caller, row, options);
    // the record as it was before it went: rendered for this answer alone, never kept (no later read shows it)
    res.json((await renderEvents(readerOf(req), [gone]))[0]);
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

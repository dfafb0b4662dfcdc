/** HTTP handlers of the venue and organizer routes (24 operations, one implementation). */
import type { Response } from 'express';
import type { HandlerTable, TypedRequest } from '../../http/handler';
import { caller } from '../../http/auth';
import { context } from '../../http/context';
import { answerList } from '../../http/lists';
import type { ListBody } from '../../http/paging';
import { readerOf, writerOf } from '../../http/reader';
import { sendJsonBytes } from '../../http/json-bytes';
import { isTrue } from '../../core/flags';
import { singleRecord, writtenRecord } from '../../http/caching';
import { allowRecord } from '../../http/allow';
import { precondition } from '../../http/preconditions';
import { sendCreated, type Created, type CreatedRenderers, type RenderCreated } from '../../http/creates';
import { claimCreated } from '../../http/idempotency';
import { kindOperations } from '../../http/kind-operations';
import type { OnCreated } from '../../core/write';
import type { Caller } from '../../users/roles';
import { linkedBytes, renderLinked } from '../records';
import { ORGANIZERS, VENUES, type LinkedKind, type LinkedRow, type LinkedType, type LinkedWire } from './kinds';
import { linkedList, linkedListBytes } from './list';
import * as service from './service';

type Op<V extends keyof HandlerTable, O extends keyof HandlerTable> = TypedRequest<V | O>;
type AnyReq = TypedRequest<keyof HandlerTable>;

/**
 * One implementation for both kinds, so its answers are typed by the kind (`Response<Venue>` for venues); that each
 * is its operation's answer in the spec is checked where they enter the table (`satisfies Partial<HandlerTable>`).
 */
function handlersFor<T extends LinkedType>(kind: LinkedKind<T>) {
  type One = Response<LinkedWire<T>>;
  type Page = Response<ListBody<LinkedKind<T>['plural'], LinkedWire<T>>>;
  const target = (req: AnyReq): Promise<LinkedRow> => {
    const { db } = context(req);
    const params = req.params as { id?: number; slug?: string };
    return params.id !== undefined
      ? service.linkedById(db, kind, params.id)
      : service.linkedBySlug(db, kind, params.slug as string);
  };
  const wire = async (req: AnyReq, rows: LinkedRow[], withJsonLd: boolean) =>
    renderLinked(readerOf(req), kind, rows, withJsonLd);
  const send = async (req: AnyReq, res: One, id: number, withJsonLd = false) => {
    const row = (await kind.load(context(req).db, [id])).get(id) as LinkedRow;
    sendJsonBytes(res, (await linkedBytes(readerOf(req), kind, [row], withJsonLd))[0]);
  };
  /** The record as its create answers it (without `json_ld`). */
  const renderCreated: RenderCreated<LinkedWire<T>> = async (req, id) => {
    const row = (await kind.load(context(req).db, [id])).get(id);
    return row && (await wire(req, [row], false))[0];
  };
  const list = { source: linkedList(kind), represent: linkedListBytes(kind), key: kind.plural };
  return {
    renderCreated,
    async list(req: Op<'listVenues', 'listOrganizers'>, res: Page) {
      await answerList(req, res, list);
    },
    async create(req: Op<'createVenue', 'createOrganizer'>, res: One) {
      const created = (id: number): Created => ({ type: kind.type, id });
      const onCreated: OnCreated = (trx, made) => claimCreated(trx, req, created(made));
      const id = await service.createLinked(context(req), kind, writerOf(req), req.body, onCreated);
      await sendCreated(req, res, created(id), renderCreated);
    },
    async get(req: Op<'getVenue' | 'getVenueBySlug', 'getOrganizer' | 'getOrganizerBySlug'>, res: One) {
      const row = await target(req);
      allowRecord(res, caller(req), kind.plural, { authorId: row.author_id, status: row.status });
      service.assertReadable(kind, row, caller(req));
      singleRecord(res, row);
      await send(req, res, row.id, true);
    },
    async update(req: AnyReq, res: One) {
      const row = await target(req);
      const body = (req.body ?? {}) as service.LinkedWrite;
      await service.updateLinked(context(req), kind, writerOf(req), row, body, precondition(req));
      await writtenRecord(req, res, 'posts', row.id);
      await send(req, res, row.id);
    },
    async remove(req: Op<'deleteVenue' | 'deleteVenueBySlug', 'deleteOrganizer' | 'deleteOrganizerBySlug'>, res: One) {
      const row = await target(req);
      const force = req.query.force !== undefined && isTrue(req.query.force);
      const expect = precondition(req);
      const result = await service.deleteLinked(context(req), kind, caller(req) as Caller, row, { force, expect });
      res.json((await wire(req, [result], false))[0]);
    },
  };
}

const venues = handlersFor(VENUES);
const organizers = handlersFor(ORGANIZERS);

export const linkedHandlers = {
  ...kindOperations('venue', venues, ['id', 'slug']),
  ...kindOperations('organizer', organizers, ['id', 'slug']),
} satisfies Partial<HandlerTable>;

export const linkedRenderers = {
  venue: venues.renderCreated,
  organizer: organizers.renderCreated,
} satisfies Partial<CreatedRenderers>;

import type { Response } from 'express';
import type { OperationId, TypedRequest } from './handler';
import { ApiError } from '../core/errors';
import { restRoot } from './urls';
import { writtenRecord, writtenRecordFrom, type SingleRead } from './caching';
import { KINDS, type Kind } from '../kinds/registry';

export type CreatedType = Kind;

/** A record a create made (or, for venues and organizers, the duplicate it reused). */
export interface Created {
  type: CreatedType;
  id: number;
}

/** Any operation's request (what rendering reads of it is common to all). */
export type AnyRequest = TypedRequest<OperationId>;

/**
 * The record as its create answers it (`B`: its wire shape), for the request's caller and language; undefined when it
 * no longer exists.
 */
export type RenderCreated<B = object> = (req: AnyRequest, id: number) => Promise<B | undefined>;

/** One renderer per kind of record (a missing one fails type-checking). */
export type CreatedRenderers = Record<CreatedType, RenderCreated>;

/**
 * The `Location` a create answers: the record's REST URL for categories and tags, as WordPress does for terms; null
 * for events, venues and organizers, which send none, as the plugin (docs/compatibility.md §7.1).
 */
export function createdLocation(req: AnyRequest, { type, id }: Created): string | null {
  const { answersLocation, collection } = KINDS[type];
  return answersLocation ? `${restRoot(req)}/${collection}/${id}` : null;
}

/**
 * Answers a create: 201, `Location` (the one given, else the record's, if its kind has one), the ETag its GET will
 * have (http/caching.ts), the record rendered.
 * A record deleted since it was made (a replay of an old create) is 410 `rest_created_record_gone`.
 */
export async function sendCreated<B>(
  req: AnyRequest,
  res: Response<B>,
  created: Created,
  render: RenderCreated<B>,
  location = createdLocation(req, created),
): Promise<void> {
  await writtenRecord(req, res, KINDS[created.type].versionedTable, created.id);
  answerCreated(res, created, await render(req, created.id), location);
}

/**
 * The record as its create answers it and as its GET reads it for this caller (the ETag's bytes; undefined when they
 * may not read it), rendered from one read of the record and what it shows.
 */
export type RenderCreatedAndRead<B = object> = (
  req: AnyRequest,
  id: number,
) => Promise<{ body: B | undefined; read: SingleRead | undefined }>;

/** `sendCreated` with a renderer that gives the GET's bytes too: the same answer, the record read once. */
export async function sendCreatedAndRead<B>(
  req: AnyRequest,
  res: Response<B>,
  created: Created,
  render: RenderCreatedAndRead<B>,
  location = createdLocation(req, created),
): Promise<void> {
  const { body, read } = await render(req, created.id);
  await writtenRecordFrom(req, res, read);
  answerCreated(res, created, body, location);
}

function answerCreated<B>(res: Response<B>, created: Created, body: B | undefined, location: string | null): void {
  if (body === undefined)
    throw new ApiError(410, 'rest_created_record_gone', 'created_record_gone', { id: created.id });
  res.status(201);
  if (location !== null) res.setHeader('Location', location);
  res.json(body);
}

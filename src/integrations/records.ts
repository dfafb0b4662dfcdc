/**
 * One record of the feed or a webhook as a given caller may read it, in a given language, in the same wire shape as
 * its own GET route; undefined when that caller cannot read it (gone, trashed, draft, private…).
 */
import type { Language } from '../config';
import type { Executor } from '../db/knex';
import type { AppContext } from '../http/context';
import type { RequestLike } from '../http/urls';
import { canRead, type Caller } from '../users/roles';
import { loadRelations, toWireEvent } from '../resources/events/mapper';
import { findEvent } from '../resources/events/repository';
import { unlocked } from '../resources/events/service';
import { imagesByIds } from '../resources/images/images';
import { ORGANIZERS, VENUES, type LinkedKind } from '../resources/linked/kinds';
import { renderContext } from '../resources/posts/mapper';
import { toWireTerm } from '../resources/terms/mapper';
import { findTerm } from '../resources/terms/repository';
import { CATEGORIES, TAGS, type TaxonomyInfo } from '../resources/terms/taxonomies';
import { translatePosts, translateTerms } from '../resources/translations';
import type { Resource } from './outbox';

export interface Reader {
  req: RequestLike;
  db: Executor;
  caller: Caller | undefined;
  language: Language;
}

const owned = (row: { author_id: number | null; status: string }) => ({ authorId: row.author_id, status: row.status });

export async function readRecord(reader: Reader, resource: Resource, id: number): Promise<object | undefined> {
  if (resource === 'event') return readEvent(reader, id);
  if (resource === 'venue' || resource === 'organizer')
    return readLinked(reader, resource === 'venue' ? VENUES : ORGANIZERS, id);
  return readTerm(reader, resource === 'category' ? CATEGORIES : TAGS, id);
}

async function readEvent({ req, db, caller, language }: Reader, id: number): Promise<object | undefined> {
  const row = await findEvent(db, id);
  if (!row || row.status === 'trash' || !canRead(caller, 'events', owned(row))) return undefined;
  const [translated] = await translatePosts(db, [row], language);
  const relations = await loadRelations(db, [translated], language);
  // a password-protected event reads as the lists show it: protected fields blanked unless the caller may edit it
  return toWireEvent(renderContext(req), translated, relations, {
    single: true,
    blanked: !unlocked(row, caller, undefined),
  });
}

async function readLinked(
  { req, db, caller, language }: Reader,
  kind: LinkedKind,
  id: number,
): Promise<object | undefined> {
  const row = (await kind.load(db, [id])).get(id);
  if (!row || row.type !== kind.type || row.status === 'trash' || !canRead(caller, kind.plural, owned(row)))
    return undefined;
  const [translated] = await translatePosts(db, [row], language);
  const images = await imagesByIds(db, translated.image_id === null ? [] : [translated.image_id]);
  return kind.toWire(renderContext(req), translated, images, true);
}

async function readTerm({ req, db, language }: Reader, info: TaxonomyInfo, id: number): Promise<object | undefined> {
  const row = await findTerm(db, info.taxonomy, id);
  if (!row) return undefined;
  const [translated] = await translateTerms(db, [row], language);
  return toWireTerm(req, info, translated);
}

/**
 * What URL building needs when no request is at hand (webhook deliveries): the public site (PUBLIC_URL, else the
 * listening address) stands for the caller's host.
 */
export function offlineRequest(context: AppContext): RequestLike {
  const { config } = context;
  const site = new URL(
    config.publicUrl ?? `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`,
  );
  return {
    protocol: site.protocol.replace(/:$/, ''),
    host: site.host,
    get: () => undefined,
    app: { locals: { context } },
    originalUrl: '/',
    res: undefined,
    query: {},
  } as unknown as RequestLike;
}

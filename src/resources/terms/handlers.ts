/** HTTP handlers of the category and tag routes: validated request in, service call, wire shape out. */
import type { Response } from 'express';
import type { HandlerTable, TypedRequest } from '../../http/handler';
import { context } from '../../http/context';
import { answerList } from '../../http/lists';
import type { ListBody } from '../../http/paging';
import { readerOf, writerOf } from '../../http/reader';
import { sendJsonBytes } from '../../http/json-bytes';
import { singleRecord, writtenRecord } from '../../http/caching';
import { precondition } from '../../http/preconditions';
import { sendCreated, type Created, type CreatedRenderers, type RenderCreated } from '../../http/creates';
import { claimCreated } from '../../http/idempotency';
import { kindOperations } from '../../http/kind-operations';
import { caller } from '../../http/auth';
import type { Caller } from '../../users/roles';
import * as service from './service';
import { findTerm, type TermRow } from './repository';
import { renderTerms, termBytes } from '../records';
import type { OnCreated } from '../../core/write';
import type { Reader } from '../../core/reader';
import { CATEGORIES, TAGS, type TaxonomyInfo, type TermKey, type TermWire } from './taxonomies';

type Req<C extends keyof HandlerTable, T extends keyof HandlerTable> = TypedRequest<C | T>;

/**
 * One implementation for both taxonomies, so its answers are typed by the taxonomy (`Response<Category>` for
 * categories); that each is its operation's answer in the spec is checked where they enter the table.
 */
function handlersFor<K extends TermKey>(info: TaxonomyInfo<K>) {
  type One = Response<TermWire<K>>;
  /** The terms in the request's language, in the wire shape. */
  const wire = (req: Req<keyof HandlerTable, keyof HandlerTable>, rows: TermRow[]) =>
    renderTerms(readerOf(req), info, rows);
  const one = async (req: Req<keyof HandlerTable, keyof HandlerTable>, row: TermRow) => (await wire(req, [row]))[0];
  const list = {
    source: service.termList(info),
    represent: (reader: Reader, rows: TermRow[]) => termBytes(reader, info, rows),
    key: info.key,
  };
  /** The term as its create answers it (as every single read does). */
  const renderCreated: RenderCreated<TermWire<K>> = async (req, id) => {
    const row = await findTerm(context(req).db, info.taxonomy, id);
    return row && one(req, row);
  };
  return {
    renderCreated,
    async list(req: Req<'listCategories', 'listTags'>, res: Response<ListBody<K, TermWire<K>>>) {
      await answerList(req, res, list);
    },
    async create(req: Req<'createCategory', 'createTag'>, res: One) {
      const created = (id: number): Created => ({ type: info.kind, id });
      const onCreated: OnCreated = (trx, made) => claimCreated(trx, req, created(made));
      const term = await service.createTerm(context(req), info, writerOf(req), req.body, onCreated);
      await sendCreated(req, res, created(term.id), renderCreated);
    },
    async get(req: Req<'getCategory', 'getTag'>, res: One) {
      const term = await service.getTerm(context(req).db, info, req.params.id);
      singleRecord(res, term);
      sendJsonBytes(res, (await termBytes(readerOf(req), info, [term]))[0]);
    },
    async update(
      req: Req<'updateCategory' | 'replaceCategory' | 'patchCategory', 'updateTag' | 'replaceTag' | 'patchTag'>,
      res: One,
    ) {
      const body = req.body ?? {};
      const term = await service.updateTerm(context(req), info, writerOf(req), req.params.id, body, precondition(req));
      await writtenRecord(req, res, 'terms', term.id);
      // read again after the tag: the row the write returned may be older than the data version the tag names
      res.json(await one(req, (await findTerm(context(req).db, info.taxonomy, term.id)) ?? term));
    },
    async remove(req: Req<'deleteCategory', 'deleteTag'>, res: One) {
      const term = await service.deleteTerm(
        context(req),
        info,
        caller(req) as Caller,
        req.params.id,
        precondition(req),
      );
      res.json(await one(req, term));
    },
  };
}

const categories = handlersFor(CATEGORIES);
const tags = handlersFor(TAGS);

export const termHandlers = {
  ...kindOperations('category', categories, ['id']),
  ...kindOperations('tag', tags, ['id']),
} satisfies Partial<HandlerTable>;

export const termRenderers = {
  category: categories.renderCreated,
  tag: tags.renderCreated,
} satisfies Partial<CreatedRenderers>;

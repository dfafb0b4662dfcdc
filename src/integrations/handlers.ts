/** `GET /changes`: the feed as the caller may read it, in the request's language. */
import type { HandlerTable, TypedRequest, TypedResponse } from '../http/handler';
import { context } from '../http/context';
import { readerOf } from '../http/reader';
import { readChanges } from './changes';

export const changeHandlers = {
  async listChanges(req: TypedRequest<'listChanges'>, res: TypedResponse<'listChanges'>) {
    const { db, config } = context(req);
    res.locals.noStore = true;
    res.json(await readChanges(readerOf(req), db, config, req.query.cursor, req.query.limit ?? 100));
  },
} satisfies Partial<HandlerTable>;

/** `GET /changes`: the feed as the caller may read it, in the request's language. */
import type { HandlerTable, TypedRequest, TypedResponse } from '../http/handler';
import { caller } from '../http/auth';
import { context } from '../http/context';
import { requestLanguage } from '../http/language';
import { readChanges } from './changes';

export const changeHandlers = {
  async listChanges(req: TypedRequest<'listChanges'>, res: TypedResponse<'listChanges'>) {
    const { db, config } = context(req);
    const reader = { req, db, caller: caller(req), language: requestLanguage(req) };
    res.locals.noStore = true;
    res.json(await readChanges(reader, config, req.query.cursor, req.query.limit ?? 100));
  },
} satisfies Partial<HandlerTable>;

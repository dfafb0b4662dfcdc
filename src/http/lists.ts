/**
 * A JSON list page, read through the kernel's list pipeline (core/lists.ts) and sent in its envelope: the one way
 * every list route answers.
 */
import type { Response } from 'express';
import { readList, type ListSource, type Representation } from '../core/lists';
import { paging, SerialisedItems, sendList, type ListBody, type ListKey } from './paging';
import { readerOf } from './reader';
import type { RequestLike } from './urls';

/** A list route: its source, its rows as bytes, and the envelope's key. */
export interface JsonList<Q, F, R, K extends ListKey> {
  source: ListSource<Q, F, R>;
  represent: Representation<F, R, Buffer[]>;
  key: K;
}

/** Reads the page the request asks for and sends it; `path`: the collection's path when it is not `key`. */
export async function answerList<Q, F, R, K extends ListKey, T>(
  req: RequestLike & { query: NoInfer<Q> & { page?: number; per_page?: number } },
  res: Response<ListBody<K, T>>,
  { source, represent, key }: JsonList<Q, F, R, K>,
  path?: string,
): Promise<void> {
  const page = paging(req.query);
  const window = { limit: page.perPage, offset: page.offset };
  const { body, total } = await readList(readerOf(req), source, req.query, window, represent);
  sendList(req, res, { key, items: new SerialisedItems(body), total, paging: page, path });
}

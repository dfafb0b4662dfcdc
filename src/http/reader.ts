/** The reader and the writer of a request: its caller and language, the URLs it reached us by, the app's cache. */
import type { Executor } from '../db/types';
import type { Reader } from '../core/reader';
import type { Writer } from '../core/write';
import type { Caller } from '../users/roles';
import { witnessOf } from './answer-cache';
import { caller } from './auth';
import { context } from './context';
import { requestLanguage } from './language';
import { renderContextOf, type RequestLike } from './urls';

/** Who reads, as the request says, on the service's database (or the transaction given). */
export function readerOf(req: RequestLike, db: Executor = context(req).db): Reader {
  const { config, cache } = context(req);
  const render = renderContextOf(req);
  const witness = db === context(req).db ? witnessOf(req) : undefined; // a transaction may see its own writes
  const reader = { db, caller: caller(req), language: requestLanguage(req), config, render, witness };
  return { ...reader, cache: cache.forRoot(render.root) };
}

/** Who writes: the authenticated caller (write operations are authorised before their handler), in the request's language. */
export function writerOf(req: RequestLike): Writer {
  return { caller: caller(req) as Caller, language: requestLanguage(req) };
}

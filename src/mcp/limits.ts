/**
 * What one `/mcp` request may cost: a JSON-RPC batch holds at most `MAX_BATCH` messages (a larger one is refused
 * before any runs), and the tool calls of one request run at most `CALL_CONCURRENCY` at a time, so a small POST
 * cannot start a hundred REST requests at once.
 */
import type { RequestHandler } from 'express';

export const MAX_BATCH = 20;
export const CALL_CONCURRENCY = 4;
/** JSON-RPC's code for a request that is not a valid one. */
const INVALID_REQUEST = -32600;

/** 400 with a JSON-RPC error for a batch of more than `MAX_BATCH` messages. */
export const batchLimit: RequestHandler = (req, res, next) => {
  if (!Array.isArray(req.body) || req.body.length <= MAX_BATCH) return next();
  res.status(400).json({
    jsonrpc: '2.0',
    error: { code: INVALID_REQUEST, message: `A batch holds at most ${MAX_BATCH} messages.` },
    id: null,
  });
};

/** `run` wrapped so that at most `limit` of its calls are under way at once; the others wait their turn. */
export function bounded<A extends unknown[], R>(limit: number, run: (...args: A) => Promise<R>) {
  let running = 0;
  const waiting: Array<() => void> = [];
  return async (...args: A): Promise<R> => {
    if (running >= limit) await new Promise<void>((resolve) => waiting.push(resolve));
    else running++;
    try {
      return await run(...args);
    } finally {
      const next = waiting.shift();
      if (next) next();
      else running--;
    }
  };
}

/**
 * A JSON body sent as a form (D96). `curl -d '{"name":"x"}'` sends JSON with curl's default
 * `Content-Type: application/x-www-form-urlencoded`; read as the form WordPress would read, it is one field whose
 * name is the whole JSON text, and the answer would be a puzzling `Missing parameter(s): name`. Forms stay accepted;
 * a form whose first field name starts with `{` or `[` (raw or percent-encoded: no parameter of this API does) is
 * refused with a 400 that says to send `Content-Type: application/json`.
 */
import type { IncomingMessage } from 'node:http';
import type { RequestHandler } from 'express';
import { ApiError } from '../core/errors';

const JSON_START = /^\s*(?:[{[]|%7b|%5b)/i;

/** Requests whose form body looked like JSON, marked while the body parser reads the raw bytes. */
const marked = new WeakSet<IncomingMessage>();

/** The `verify` option of `express.urlencoded`: sees the raw body before it is parsed. */
export function markJsonAsForm(req: IncomingMessage, _res: unknown, body: Buffer): void {
  if (JSON_START.test(body.subarray(0, 64).toString('latin1'))) marked.add(req);
}

/** Placed right after the form parser: refuses a form body that was JSON. */
export const refuseJsonAsForm: RequestHandler = (req, _res, next) => {
  next(marked.has(req) ? new ApiError(400, 'rest_invalid_json', 'json_sent_as_form') : undefined);
};

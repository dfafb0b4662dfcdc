/**
 * Errors in the WordPress REST shape `{code, message, data: {status, …}}` (docs/compatibility.md §2). Code throws an
 * `ApiError` (core/errors.ts); `errorHandler` is the one place that turns anything thrown (ours, the validator's,
 * the body parser's) into that shape, in the request's language.
 */
import type {} from './request-log'; // declares `req.log`
import type { ErrorRequestHandler } from 'express';
import { message } from '../i18n/messages';
import { ApiError } from '../core/errors';
import { translateValidatorError } from './validation-errors';
import { messageLanguage } from './language';
import type { Language } from '../config';
import { isDatabaseBusy } from '../db/dialect';

/** Seconds a client is told to wait before trying a write again when the database was busy. */
const BUSY_RETRY_AFTER = 2;

export function toWire(error: ApiError, language: Language): object {
  const data: Record<string, unknown> = { status: error.status, ...error.data };
  if (error.params) {
    data.params = Object.fromEntries(
      Object.entries(error.params).map(([name, [key, values]]) => [name, message(language, key, { name, ...values })]),
    );
    data.details = error.data.details ?? {};
  }
  if (error.missing) data.params = error.missing;
  return { code: error.code, message: message(language, error.messageKey, error.values), data };
}

/** The last middleware: every error leaves here in the wire shape; unexpected ones are logged, never leaked. */
export const errorHandler: ErrorRequestHandler = (err, req, res, _next) => {
  const error = asApiError(err);
  if (error.status === 500) req.log?.error({ err }, 'request failed');
  if (error.status === 503) req.log?.warn({ err }, 'database busy');
  if (res.headersSent) return;
  if ((error.status === 429 || error.status === 503) && typeof error.data.retry_after === 'number')
    res.setHeader('Retry-After', String(error.data.retry_after));
  if (error.status === 412 && typeof error.data.etag === 'string') res.setHeader('ETag', error.data.etag);
  res.status(error.status).json(toWire(error, messageLanguage(req)));
};

function asApiError(err: unknown): ApiError {
  if (err instanceof ApiError) return err;
  const translated = translateValidatorError(err);
  if (translated) return translated;
  // the router cannot decode a malformed percent-escape in the path: no route matches it
  if (err instanceof URIError) return new ApiError(404, 'rest_no_route', 'no_route');
  if (isDatabaseBusy(err)) {
    const seconds = BUSY_RETRY_AFTER;
    return new ApiError(503, 'rest_database_busy', 'database_busy', { seconds }, { retry_after: seconds });
  }
  const { type, status, expose } = (err ?? {}) as { type?: string; status?: number; expose?: boolean };
  if (type === 'entity.parse.failed') return new ApiError(400, 'rest_invalid_json', 'invalid_json');
  if (type === 'entity.too.large' || type === 'parameters.too.many')
    return new ApiError(413, 'rest_payload_too_large', 'payload_too_large');
  if (type === 'charset.unsupported' || type === 'encoding.unsupported')
    return new ApiError(415, 'rest_unsupported_media_type', 'unsupported_media_type');
  // any other client error the body parser reports (bad compression, nesting too deep, aborted upload…)
  if (expose && typeof status === 'number' && status >= 400 && status < 500)
    return new ApiError(status, 'rest_invalid_body', 'invalid_body');
  return new ApiError(500, 'rest_internal_error', 'internal_error');
}

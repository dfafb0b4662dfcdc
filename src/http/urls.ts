/** URLs the responses carry: the REST root of the request's host, and the public site for `url` fields. */
import type { Request } from 'express';

/** What URL building reads of a request (any typed request will do). */
export type RequestLike = Pick<Request, 'protocol' | 'host' | 'get' | 'app' | 'originalUrl' | 'res'> & {
  query: object;
};
import { NAMESPACE } from '../config';
import { context } from './context';

/** `{base_url}`: scheme, host and BASE_PATH as the caller reached us. */
export function baseUrl(req: RequestLike): string {
  // `req.host` honours X-Forwarded-Host when TRUST_PROXY is on
  return `${req.protocol}://${req.host ?? 'localhost'}${context(req).config.basePath}`;
}

/** `{base_url}/calendar/events/v1`, no trailing slash. */
export function restRoot(req: RequestLike): string {
  return `${baseUrl(req)}/${NAMESPACE}`;
}

/** PUBLIC_URL, defaulting to `{base_url}` (docs/decisions.md D2). */
export function publicUrl(req: RequestLike): string {
  return context(req).config.publicUrl ?? baseUrl(req);
}

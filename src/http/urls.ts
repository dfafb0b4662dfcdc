/** URLs the responses carry: the REST root of the request's host, and the public site for `url` fields. */
import type { Request } from 'express';
import { renderContextAt, type RenderContext } from '../core/reader';
import { context } from './context';

/** What URL building reads of a request (any typed request will do). */
export type RequestLike = Pick<Request, 'protocol' | 'host' | 'get' | 'app' | 'originalUrl' | 'res'> & {
  query: object;
};

/** `{base_url}`: scheme, host and BASE_PATH as the caller reached us. */
export function baseUrl(req: RequestLike): string {
  // `req.host` honours X-Forwarded-Host when TRUST_PROXY is on
  return `${req.protocol}://${req.host ?? 'localhost'}${context(req).config.basePath}`;
}

/** `{base_url}/calendar/events/v1`, no trailing slash. */
export function restRoot(req: RequestLike): string {
  return renderContextOf(req).root;
}

/** PUBLIC_URL, defaulting to `{base_url}` (docs/decisions.md D2). */
export function publicUrl(req: RequestLike): string {
  return renderContextOf(req).site;
}

/** The URLs and settings records render with for this request. */
export function renderContextOf(req: RequestLike): RenderContext {
  return renderContextAt(context(req).config, baseUrl(req));
}

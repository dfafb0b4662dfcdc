/**
 * URLs the responses carry: the REST root of the request's host, and the public site for `url` fields. The host is
 * the request's (`Host`, or `X-Forwarded-Host` under TRUST_PROXY) once `allowedHostsOnly` has let it through: well
 * formed, and one of ALLOWED_HOSTS when that is set (docs/decisions.md D126).
 */
import type { Request, RequestHandler } from 'express';
import { WELL_FORMED_HOST, type Config } from '../config';
import { ApiError } from '../core/errors';
import { renderContextAt, type RenderContext } from '../core/reader';
import { context } from './context';

/** What URL building reads of a request (any typed request will do). */
export type RequestLike = Pick<Request, 'protocol' | 'host' | 'get' | 'app' | 'originalUrl' | 'res'> & {
  query: object;
};

/** `{base_url}`: scheme, host and BASE_PATH as the caller reached us. */
export function baseUrl(req: RequestLike): string {
  // `req.host` honours X-Forwarded-Host when TRUST_PROXY is on; one host in any case is one cache scope
  return `${req.protocol}://${(req.host ?? 'localhost').toLowerCase()}${context(req).config.basePath}`;
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

/**
 * Refuses, with 400 `rest_invalid_host`, a request whose host is not fit to be copied into URLs: malformed, or not
 * one of ALLOWED_HOSTS when that is set (a name alone allows it on any port).
 */
export function allowedHostsOnly(config: Pick<Config, 'allowedHosts'>): RequestHandler {
  return (req, _res, next) => {
    const host = (req.host ?? '').toLowerCase();
    if (!WELL_FORMED_HOST.test(host) || (config.allowedHosts && !isListed(host, config.allowedHosts)))
      throw new ApiError(400, 'rest_invalid_host', 'invalid_host');
    next();
  };
}

function isListed(host: string, allowed: readonly string[]): boolean {
  return allowed.includes(host) || allowed.includes(host.replace(/:\d+$/, ''));
}

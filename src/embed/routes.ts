/**
 * The embeddable calendar's routes, outside the REST namespace (like `/docs`), mounted at `{base_url}/embed`
 * (docs/decisions.md D140):
 *   - `calendar.<hash>.js`: the bundle, named by its bytes, cached for a year (`immutable`), gzipped when accepted;
 *   - `calendar.js`: the stable name pages use, a one-line module importing the current bundle, cached 5 minutes;
 *   - `/`: the demo page.
 * The scripts are answered to any origin (`Access-Control-Allow-Origin: *`: a module script from another origin
 * is a CORS request), whatever CORS_ORIGINS says of the API; they carry no data. Without a build, every asset is
 * the service's 404.
 */
import fs from 'node:fs';
import path from 'node:path';
import { createHash } from 'node:crypto';
import express, { type RequestHandler, type Router } from 'express';
import helmet from 'helmet';
import { type Config, NAMESPACE } from '../config';
import { baseUrl } from '../http/urls';
import { buildReader, VERSIONED } from './build';
import { demoPage } from './demo';

export const IMMUTABLE = 'public, max-age=31536000, immutable';
/** How long browsers and proxies may keep the stable entry before asking again (a deploy shows within this). */
export const ENTRY_MAX_AGE = 300;

const JAVASCRIPT = 'text/javascript; charset=utf-8';

/** The demo page may run its own scripts (the bundle) and talk to this service; FullCalendar adds `<style>`s. */
const demoHeaders = helmet.contentSecurityPolicy({
  directives: {
    defaultSrc: ["'none'"],
    scriptSrc: ["'self'"],
    styleSrc: ["'self'", "'unsafe-inline'"],
    connectSrc: ["'self'"],
    imgSrc: ["'self'", 'data:', 'https:'],
    baseUri: ["'none'"],
    formAction: ["'none'"],
    frameAncestors: ["'none'"],
    upgradeInsecureRequests: null,
  },
});

const anyOrigin: RequestHandler = (_req, res, next) => {
  res.setHeader('Access-Control-Allow-Origin', '*');
  next();
};

const accepts = (header: string | undefined, coding: string) =>
  (header ?? '').split(',').some((part) => {
    const [name, ...params] = part.trim().toLowerCase().split(';');
    return name.trim() === coding && !params.some((p) => /^\s*q=0(\.0*)?\s*$/.test(p));
  });

const matches = (ifNoneMatch: string | undefined, etag: string) =>
  (ifNoneMatch ?? '')
    .split(',')
    .map((tag) => tag.trim().replace(/^W\//, ''))
    .some((tag) => tag === '*' || tag === etag);

export function embedRoutes(config: Pick<Config, 'siteTimezone'>, dir: string): Router {
  const current = buildReader(dir);
  const router = express.Router({ caseSensitive: true, strict: true });

  router.get('/calendar.js', anyOrigin, (req, res, next) => {
    const build = current();
    if (!build) return next();
    const body = `import './${build.file}';\n`;
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 22)}"`;
    res.set({
      'Content-Type': JAVASCRIPT,
      'Cache-Control': `public, max-age=${ENTRY_MAX_AGE}`,
      ETag: etag,
      Link: `<${build.file}>; rel=modulepreload; crossorigin`,
    });
    if (matches(req.get('If-None-Match'), etag)) return void res.status(304).end();
    res.send(body);
  });

  router.get('/:file', anyOrigin, (req, res, next) => {
    const name = String(req.params.file);
    if (!VERSIONED.test(name)) return next();
    const file = path.join(dir, name);
    if (!fs.existsSync(file)) return next();
    const gzip = accepts(req.get('Accept-Encoding'), 'gzip') && fs.existsSync(`${file}.gz`);
    const etag = `"${name.split('.')[1]}${gzip ? '-gzip' : ''}"`;
    res.set({ 'Content-Type': JAVASCRIPT, 'Cache-Control': IMMUTABLE, ETag: etag, Vary: 'Accept-Encoding' });
    if (matches(req.get('If-None-Match'), etag)) return void res.status(304).end();
    if (gzip) res.set('Content-Encoding', 'gzip');
    res.send(fs.readFileSync(gzip ? `${file}.gz` : file));
  });

  router.get('/', demoHeaders, (req, res, next) => {
    if (!current()) return next();
    const base = baseUrl(req);
    const root = `${base}/${NAMESPACE}`;
    const script = `${base}/embed/calendar.js`;
    res.set({ 'Content-Type': 'text/html; charset=utf-8', 'Cache-Control': 'no-cache' });
    res.send(
      demoPage({ root, script, siteTimezone: config.siteTimezone, query: req.query as Record<string, unknown> }),
    );
  });
  return router;
}

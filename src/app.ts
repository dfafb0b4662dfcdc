/**
 * Composes the HTTP application: no I/O at import, everything it needs comes in through `AppContext`.
 * Order of a namespace request: log → parse body → authenticate (Basic; a feed key on calendar reads, D69) →
 * authorise (coarse capability) → validate against the spec → handler → error mapper (docs/decisions.md D6:
 * authenticate and authorise first, then validate).
 */
import { allowHeader } from './http/allow';
import express, { type Express, type RequestHandler } from 'express';
import type * as OpenApiValidator from 'express-openapi-validator';
import { NAMESPACE } from './config';
import type { AppContext } from './http/context';
import { createAnswerCache } from './cache/answers';
import { createRepresentationCache } from './cache/representations';
import { serveAnswers, type RenewTerms } from './http/answer-cache';
import { errorHandler } from './http/error-handler';
import { ApiError, invalidParam } from './core/errors';
import { authenticate, authorise } from './http/auth';
import { feedKey } from './http/feed-keys';
import { serviceIndex } from './http/discovery';
import { createdRenderers, handlers, wantsCalendar } from './routes';
import { renewEmbeddedTerms, singleReadAnswer } from './resources/records';
import { readerOf } from './http/reader';
import { requestLanguage } from './http/language';
import type { Operation } from './http/spec';
import { isMigrated } from './db/migrate';
import { DOCS_SITE, EMBED_BUILD } from './paths';
import { markJsonAsForm, refuseJsonAsForm } from './http/json-as-form';
import { conditionalReads, currentTagOn412, tagRecordsWith } from './http/caching';
import { idempotentCreate } from './http/idempotency';
import { assertClean, requestGuard } from './http/parameter-checks';
import { MAX_ID } from './domain/ids';
import { apiHeaders, corsFor, docsHeaders } from './http/hardening';
import { allowedHostsOnly } from './http/urls';
import type { Logger } from './logger';
import { useRequestLog } from './http/request-log';
import { compileValidatorRoutesOnce } from './http/validator-routes';
import { specValidator } from './http/validator';
import { instrumentDatabase, instrumentRequests, metricsRoute } from './ops/metrics';
import { createMetrics } from './metrics/registry';
import { registerSeriesMetrics } from './resources/series/metrics';
import { registerWebhookMetrics } from './integrations/webhooks/metrics';
import { registerChangeStreamMetrics } from './integrations/stream';
import { mcpEndpoint } from './mcp/endpoint';
import { embedRoutes } from './embed/routes';

export interface AppOptions {
  logger: Logger;
  /** Validate every response against the spec (tests: a response outside the spec becomes a 500). */
  validateResponses?: boolean;
}

/**
 * What the app is built from; without `metrics` it makes its own registry, without `cache` its own representation
 * cache (both per the configuration).
 */
export type AppInput = Omit<AppContext, 'metrics' | 'cache' | 'answers'> &
  Partial<Pick<AppContext, 'metrics' | 'cache' | 'answers'>>;

export function createApp(input: AppInput, { logger, validateResponses = false }: AppOptions): Express {
  const metrics = input.metrics ?? createMetrics({ enabled: input.config.metrics });
  const cache = input.cache ?? createRepresentationCache(input.config, metrics);
  const answers = input.answers ?? createAnswerCache(input.config, metrics);
  const context: AppContext = { ...input, metrics, cache, answers };
  const { config, spec } = context;
  const namespace = `${config.basePath}/${NAMESPACE}`;
  const app = express();
  app.locals.context = context;
  tagRecordsWith(app, singleReadAnswer);
  app.set('query parser', 'extended');
  app.set('trust proxy', config.trustProxy);
  app.disable('x-powered-by');
  app.set('etag', false); // reads get a strong ETag of their own (http/caching.ts), other answers none

  if (metrics.enabled) {
    app.use(instrumentRequests(metrics, spec.operations, namespace, config.basePath));
    instrumentDatabase(metrics, context.db);
    registerSeriesMetrics(metrics, context.db, config);
    registerWebhookMetrics(metrics, context.db);
    registerChangeStreamMetrics(metrics, context.db);
  }
  useRequestLog(app, logger);
  app.use(apiHeaders);
  app.get(`${config.basePath}/livez`, (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get(`${config.basePath}/readyz`, readiness(context));
  // probes may name a node by its address; everything after copies the host into URLs or cache keys
  app.use(allowedHostsOnly(config));
  if (metrics.enabled) app.get(`${config.basePath}/metrics`, metricsRoute(metrics, config.metricsToken));
  // the Redoc site of `npm run docs`; `/docs` and `/docs/<lang>` redirect to their slash form. Without a built
  // site every request falls through to the final 404 `rest_no_route`.
  app.use(
    `${config.basePath}/docs`,
    docsHeaders,
    express.static(DOCS_SITE, { index: 'index.html', redirect: true, fallthrough: true }),
  );
  // the embeddable calendar: its script (any origin may load it) and demo page; no build, the final 404 (D140)
  app.use(`${config.basePath}/embed`, embedRoutes(config, EMBED_BUILD));
  app.get(`${config.basePath || ''}/`, serviceIndex);
  // the Model Context Protocol: each tool call is dispatched back into this app as the REST request it mirrors
  app.use(
    `${config.basePath}/mcp`,
    mcpEndpoint(context, () => app),
  );

  app.use(namespace, corsFor(config), contentLanguage);
  app.use(
    namespace,
    express.json({ limit: config.bodyLimit }),
    express.urlencoded({ extended: true, limit: config.bodyLimit, verify: markJsonAsForm }),
    refuseJsonAsForm,
  );
  const renewTerms: RenewTerms = (req, body, moved) => renewEmbeddedTerms(readerOf(req), body, moved);
  app.use(namespace, conditionalReads, authenticate, serveAnswers(answers, renewTerms));
  for (const op of spec.operations) {
    app[op.method](namespace + op.expressPath, allowHeader(op.path, spec.operations));
    if (op.capability) app[op.method](namespace + op.expressPath, authorise(op.capability));
    if (takesFeedKey(op))
      app.get(namespace + op.expressPath, feedKey(op.operationId.endsWith('Ical') ? always : wantsCalendar));
  }
  app.use(namespace, requestGuard(spec), headAsGet.before);
  compileValidatorRoutesOnce();
  app.use(specValidator(() => withServer(context, namespace), { namespace, validateResponses }));
  app.use(namespace, headAsGet.after);
  const idempotent = idempotentCreate(createdRenderers);
  for (const op of spec.operations) {
    const handler = handlers[op.operationId as keyof typeof handlers] as RequestHandler;
    const once = op.parameters.some((p) => p.in === 'header' && p.name === 'Idempotency-Key') ? [idempotent] : [];
    app[op.method](namespace + op.expressPath, bindOperation(op), ...once, handler);
  }
  app.use(() => {
    throw new ApiError(404, 'rest_no_route', 'no_route');
  });
  app.use(currentTagOn412, errorHandler);
  return app;
}

/** The calendar reads that take `?key=` (http/feed-keys.ts): the spec declares the parameter on them. */
function takesFeedKey(op: Operation): boolean {
  return op.method === 'get' && op.parameters.some((p) => p.in === 'query' && p.name === 'key');
}

const always = () => true;

/** Every namespace response says which language it carries (errors included). */
const contentLanguage: RequestHandler = (req, res, next) => {
  res.setHeader('Content-Language', requestLanguage(req));
  next();
};

/**
 * HEAD is GET without a body (Express routes it so, Node drops the body), but the validator knows only the
 * spec's methods: it validates a HEAD request as the GET it stands for.
 */
const headAsGet: Record<'before' | 'after', RequestHandler> = {
  before(req, res, next) {
    if (req.method === 'HEAD') {
      res.locals.head = true;
      req.method = 'GET';
    }
    next();
  },
  after(req, res, next) {
    if (res.locals.head) req.method = 'HEAD';
    next();
  },
};

/** The validator reads a copy of the spec whose server is this deployment's namespace path. */
function withServer({ spec }: AppContext, namespace: string) {
  return { ...structuredClone(spec.document), servers: [{ url: namespace }] } as Parameters<
    typeof OpenApiValidator.middleware
  >[0]['apiSpec'];
}

/**
 * Records the operation for shared plumbing (paging echoes its parameters), gives the handler its integer path
 * parameters as numbers (Express re-parses `req.params` per route, after the validator's coercion), and keeps only
 * the body fields the operation declares: unknown fields are ignored, as the plugin does, so no handler can act on
 * a field the spec does not have (but for those it names as refused, D91).
 */
function bindOperation(op: Operation): RequestHandler {
  const integers = op.parameters
    .filter((p) => p.in === 'path' && (p.schema as { type?: string } | undefined)?.type === 'integer')
    .map((p) => p.name);
  const queryIntegers = op.parameters.filter((p) => p.in === 'query' && takesIntegers(p.schema)).map((p) => p.name);
  const declared = op.body && [...Object.keys(op.body.properties), ...op.body.refused];
  return (req, res, next) => {
    res.locals.operation = op;
    assertClean(op, req);
    // the validator lets `1e400` and `Infinity` through as "integers" (Infinity % 1 is not 0, but NaN is falsy)
    for (const name of queryIntegers) {
      const value = (req.query as Record<string, unknown>)[name];
      const values = Array.isArray(value) ? value : [value];
      if (values.some((v) => typeof v === 'number' && !Number.isSafeInteger(v))) {
        throw invalidParam(name, 'param_type', { type: 'integer' });
      }
    }
    for (const name of integers) {
      const id = Number(req.params[name]);
      // an id no 32-bit column holds matches no route, like `\d+` overflowing in WordPress
      if (!Number.isInteger(id) || id > MAX_ID) throw new ApiError(404, 'rest_no_route', 'no_route');
      (req.params as Record<string, unknown>)[name] = id;
    }
    if (declared && req.body && typeof req.body === 'object' && !Array.isArray(req.body)) {
      req.body = Object.fromEntries(declared.filter((name) => name in req.body).map((name) => [name, req.body[name]]));
    }
    next();
  };
}

/** Whether a parameter's schema takes integers (an integer, or an array of them). */
function takesIntegers(schema: unknown): boolean {
  const { type, items } = (schema ?? {}) as { type?: string | string[]; items?: unknown };
  return (
    type === 'integer' || (Array.isArray(type) && type.includes('integer')) || (items ? takesIntegers(items) : false)
  );
}

function readiness({ db }: AppContext): RequestHandler {
  return async (_req, res) => {
    try {
      await db.raw('select 1');
      const migrated = await isMigrated(db);
      res.status(migrated ? 200 : 503).json({ status: migrated ? 'ready' : 'migrating' });
    } catch {
      res.status(503).json({ status: 'database unreachable' });
    }
  };
}

/**
 * The informational routes, all derived from the spec: the namespace index (WordPress's route catalogue,
 * docs/compatibility.md §6.1), `/doc` (the spec itself), and the service root `{base_url}/` with the discovery headers.
 */
import type { RequestHandler } from 'express';
import type { OpenAPIV3_1 } from 'openapi-types';
import { NAMESPACE } from '../config';
import type { components } from '../../generated/schema';
import type { HandlerTable } from './handler';
import { context } from './context';
import { resolve, type LoadedSpec, type Operation } from './spec';
import { baseUrl, publicUrl, restRoot, type RequestLike } from './urls';
import { requestLanguage } from './language';

type Schema = OpenAPIV3_1.SchemaObject;
type Arg = Record<string, unknown> & { required: boolean };
type Endpoint = { methods: string[]; args: Record<string, Arg> };

const EDITABLE = new Set(['POST', 'PUT', 'PATCH']);

/** `/events/{id}` → `/calendar/events/v1/events/(?P<id>\d+)`, the WordPress route pattern. */
function routePattern(op: Operation): string {
  const pattern = op.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    const param = op.parameters.find((p) => p.name === name && p.in === 'path');
    const type = (param?.schema as Schema | undefined)?.type;
    return `(?P<${name}>${type === 'integer' ? '\\d+' : '[^/]+'})`;
  });
  return `/${NAMESPACE}${pattern === '/' ? '' : pattern}`;
}

function argOf(
  document: OpenAPIV3_1.Document,
  schema: Schema | undefined,
  description: string | undefined,
  required: boolean,
): Arg {
  const s = resolve<Schema>(document, schema ?? {}) as Record<string, unknown>;
  const picked = Object.fromEntries(
    (['type', 'default', 'enum', 'format', 'minimum', 'maximum', 'items'] as const)
      .filter((key) => s[key] !== undefined)
      .map((key) => [key, key === 'items' ? resolve(document, s.items as Schema) : s[key]]),
  );
  const text = description ?? s.description;
  return { ...(text ? { description: text } : {}), ...picked, required };
}

/** Body fields of an operation. */
function bodyArgs(document: OpenAPIV3_1.Document, op: Operation): Record<string, Arg> {
  const { properties = {}, required = new Set<string>() } = op.body ?? {};
  return Object.fromEntries(
    Object.entries(properties).map(([name, s]) => [name, argOf(document, s, undefined, required.has(name))]),
  );
}

function endpointOf(document: OpenAPIV3_1.Document, op: Operation): Endpoint {
  const args: Record<string, Arg> = {};
  for (const p of op.parameters) args[p.name] = argOf(document, p.schema as Schema, p.description, Boolean(p.required));
  return { methods: [op.method.toUpperCase()], args: { ...args, ...bodyArgs(document, op) } };
}

type NamespaceIndex = components['schemas']['NamespaceIndex'];

export function namespaceIndex(spec: LoadedSpec, root: string, site: string): NamespaceIndex {
  const routes: NamespaceIndex['routes'] = {};
  for (const op of spec.operations) {
    const pattern = routePattern(op);
    const route = (routes[pattern] ??= { namespace: NAMESPACE, methods: [], endpoints: [] });
    const endpoint = endpointOf(spec.document, op);
    // POST, PUT and PATCH of one item share their arguments: one endpoint, as WordPress's EDITABLE
    const same =
      EDITABLE.has(endpoint.methods[0]) &&
      route.endpoints.find(
        (e) => EDITABLE.has(e.methods[0]) && JSON.stringify(e.args) === JSON.stringify(endpoint.args),
      );
    if (same) same.methods.push(...endpoint.methods);
    else route.endpoints.push(endpoint);
    route.methods.push(...endpoint.methods);
    if (!op.path.includes('{')) route._links = { self: [{ href: `${root}${op.path === '/' ? '' : op.path}` }] };
  }
  return { namespace: NAMESPACE, routes, _links: { up: [{ href: `${site}/` }] } };
}

/**
 * The spec as served: `servers[0].url` is the namespace root of the request's host, without a trailing slash (the
 * spec's paths begin with one; D77).
 */
export function servedDocument(req: RequestLike): OpenAPIV3_1.Document {
  const document = context(req).spec.localised(requestLanguage(req));
  return { ...document, servers: [{ url: restRoot(req), description: document.servers?.[0]?.description }] };
}

export const discoveryHandlers: Pick<HandlerTable, 'getNamespaceIndex' | 'getOpenApiDocument'> = {
  getNamespaceIndex: (req, res) => {
    res.json(namespaceIndex(context(req).spec, restRoot(req), baseUrl(req)));
  },
  getOpenApiDocument: (req, res) => {
    // the spec declares the document loosely (objects of any keys); openapi-types' interfaces have no index signature
    res.json(servedDocument(req) as components['schemas']['OpenApiDocument']);
  },
};

/** `GET|HEAD {base_url}/`: what this service is and where to look, with the plugin's discovery headers. */
export const serviceIndex: RequestHandler = (req, res) => {
  const root = restRoot(req);
  res.set({ 'X-TEC-API-VERSION': 'v1', 'X-TEC-API-ROOT': `${root}/`, 'X-TEC-API-ORIGIN': publicUrl(req) });
  res.json({
    name: 'Calendar Events REST API',
    namespaces: [NAMESPACE],
    routes: { namespace: `${root}/`, spec: `${root}/doc` },
  });
};

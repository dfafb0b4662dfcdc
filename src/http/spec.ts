/**
 * The bundled OpenAPI document (generated/openapi.json) is the source of truth for routes: the app registers one
 * Express route per spec operation, the validator checks requests against it, `/` and `/doc` are derived from it.
 */
import fs from 'node:fs';
import type { OpenAPIV3_1 } from 'openapi-types';
import { BUNDLED_SPEC, localisedSpec } from '../paths';
import type { Language } from '../config';
import { isCapability, type Capability } from '../users/roles';

export const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;
export type Method = (typeof METHODS)[number];

export interface Operation {
  operationId: string;
  method: Method;
  /** The spec path, e.g. `/events/{id}`. */
  path: string;
  /** The same for Express, e.g. `/events/:id`. */
  expressPath: string;
  /** Checked before validation (docs/decisions.md D6: authenticate, authorise, then validate). */
  capability?: Capability;
  definition: OpenAPIV3_1.OperationObject;
  /** Path-item and operation parameters, resolved. */
  parameters: OpenAPIV3_1.ParameterObject[];
  /**
   * The JSON body's top-level fields (following `allOf`), with the schema of each and which are required;
   * `refused`: fields the spec leaves out on purpose but the service refuses by name when sent (`x-refused-fields`,
   * a tag's `parent`, D91), so they must reach it.
   */
  body?: { properties: Record<string, OpenAPIV3_1.SchemaObject>; required: Set<string>; refused: string[] };
}

export interface LoadedSpec {
  /** The English document: structure for routing and validation. */
  document: OpenAPIV3_1.Document;
  operations: Operation[];
  /** The document with its texts in a language (same structure), read once. */
  localised(language: Language): OpenAPIV3_1.Document;
}

export function loadSpec(file = BUNDLED_SPEC): LoadedSpec {
  const document = JSON.parse(fs.readFileSync(file, 'utf8')) as OpenAPIV3_1.Document;
  const cache = new Map<Language, OpenAPIV3_1.Document>([['en', document]]);
  const localised = (language: Language) => {
    let doc = cache.get(language);
    if (!doc) {
      doc = JSON.parse(fs.readFileSync(localisedSpec(language), 'utf8')) as OpenAPIV3_1.Document;
      cache.set(language, doc);
    }
    return doc;
  };
  return { document, operations: listOperations(document), localised };
}

function listOperations(document: OpenAPIV3_1.Document): Operation[] {
  const operations: Operation[] = [];
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    if (!item) continue;
    for (const method of METHODS) {
      const definition = item[method];
      if (!definition?.operationId) continue;
      const capability = (definition as Record<string, unknown>)['x-capability'];
      if (capability !== undefined && (typeof capability !== 'string' || !isCapability(capability))) {
        throw new Error(`${definition.operationId}: unknown x-capability ${String(capability)}`);
      }
      operations.push({
        operationId: definition.operationId,
        method,
        path,
        expressPath: path.replace(/\{(\w+)\}/g, ':$1'),
        capability: capability as Capability | undefined,
        definition,
        parameters: [...(item.parameters ?? []), ...(definition.parameters ?? [])].map((p) => resolve(document, p)),
        body: bodyOf(document, definition),
      });
    }
  }
  return operations;
}

function bodyOf(document: OpenAPIV3_1.Document, definition: OpenAPIV3_1.OperationObject): Operation['body'] {
  const body = resolve<OpenAPIV3_1.RequestBodyObject | undefined>(document, definition.requestBody);
  const schema = body?.content?.['application/json']?.schema;
  if (!schema) return undefined;
  const parts: OpenAPIV3_1.SchemaObject[] = [];
  const collect = (s: OpenAPIV3_1.SchemaObject | OpenAPIV3_1.ReferenceObject) => {
    const resolved = resolve<OpenAPIV3_1.SchemaObject>(document, s);
    parts.push(resolved);
    (resolved.allOf ?? []).forEach(collect);
  };
  collect(schema);
  // a property named in several members has their keywords together: a create's `title: {}` beside `required`
  // (D75) keeps EventWrite's schema of `title`, a category create's `parent: {minimum: 1}` narrows CategoryWrite's
  const properties: Record<string, OpenAPIV3_1.SchemaObject> = {};
  for (const part of parts) {
    for (const [name, property] of Object.entries(part.properties ?? {})) {
      properties[name] = { ...properties[name], ...(property as OpenAPIV3_1.SchemaObject) };
    }
  }
  const refused = parts.flatMap((s) => (s as { 'x-refused-fields'?: string[] })['x-refused-fields'] ?? []);
  return { properties, required: new Set(parts.flatMap((s) => s.required ?? [])), refused };
}

/** Follows a local `$ref` (`#/components/...`) in the bundled document. */
export function resolve<T>(document: OpenAPIV3_1.Document, value: T | OpenAPIV3_1.ReferenceObject): T {
  if (!value || typeof value !== 'object' || !('$ref' in value)) return value as T;
  const target = value.$ref
    .replace(/^#\//, '')
    .split('/')
    .reduce<unknown>(
      (node, key) => (node as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')],
      document,
    );
  return resolve(document, target as T | OpenAPIV3_1.ReferenceObject);
}

/**
 * The MCP tools, generated from the OpenAPI document at start-up (docs/decisions.md D100). An operation is a tool
 * when it carries `x-mcp` (see `McpExtension`); its name, grouping and the text written for an assistant come from
 * there, everything else from the operation itself: the description from its summary and description, the input
 * schema from its parameters and JSON body (one flat object, as the plugin's clients send them), the output schema
 * from its success response, the annotations from its method. Nothing here knows one operation from another: a new
 * operation or parameter in the spec is a new tool or argument with no code change.
 */
import type { OpenAPIV3_1 } from 'openapi-types';
import { type LoadedSpec, type Operation, resolve } from '../http/spec';
import type { Capability } from '../users/roles';

/** The `x-mcp` extension of an operation. */
export interface McpExtension {
  /** The tool's name (`[a-z0-9_]`, unique). */
  tool: string;
  /** The group the tool belongs to (a resource: `events`, `venues`…), listed in the tool's `_meta`. */
  group: string;
  /** Text for the assistant rather than for a person, appended to the operation's description. */
  guidance?: string;
  /** Parameters the tool does not offer (e.g. the feed `key`, which MCP callers never need). */
  exclude?: string[];
  /** Overrides the method's idempotency (GET, PUT and DELETE are idempotent; POST and PATCH are not). */
  idempotent?: boolean;
}

type JsonSchema = Record<string, unknown>;

/** Where an argument goes in the REST request it becomes. */
export type ArgumentPlace = { in: 'path' | 'query'; name: string } | { in: 'header'; name: string } | { in: 'body' };

export interface ToolDefinition {
  name: string;
  title: string;
  description: string;
  group: string;
  operation: Operation;
  /** `undefined` for anyone, or the capability the operation asks (x-capability). */
  capability?: Capability;
  /** Whether the operation only reads (a read-only application password may call it). */
  readOnly: boolean;
  inputSchema: JsonSchema & { type: 'object' };
  /** The success response's JSON schema; none when the operation answers text (iCalendar). */
  outputSchema?: JsonSchema & { type: 'object' };
  /** The media type the call asks for: JSON, or the operation's only text answer. */
  accept: string;
  annotations: { title: string; readOnlyHint: boolean; destructiveHint: boolean; idempotentHint: boolean };
  /** Each argument's place in the REST request. */
  arguments: Record<string, ArgumentPlace>;
}

const TOOL_NAME = /^[a-z][a-z0-9_]{0,63}$/;
/** Keywords of OpenAPI schemas that JSON Schema 2020-12 does not have (annotations only). */
const OPENAPI_ONLY = new Set(['example', 'xml', 'externalDocs', 'discriminator']);

/** The text for the assistant about the whole server: the document's top-level `x-mcp.instructions`. */
export function instructionsOf(spec: Pick<LoadedSpec, 'document'>): string | undefined {
  return ((spec.document as Record<string, unknown>)['x-mcp'] as { instructions?: string } | undefined)?.instructions;
}

/** Every tool of the document, in document order; throws on an `x-mcp` that cannot be honoured. */
export function generateTools(spec: Pick<LoadedSpec, 'document' | 'operations'>): ToolDefinition[] {
  const tools: ToolDefinition[] = [];
  const names = new Set<string>();
  for (const op of spec.operations) {
    const extension = (op.definition as Record<string, unknown>)['x-mcp'] as McpExtension | undefined;
    if (!extension) continue;
    if (!TOOL_NAME.test(extension.tool ?? '') || names.has(extension.tool)) {
      throw new Error(`${op.operationId}: x-mcp.tool must be a unique name matching ${TOOL_NAME}`);
    }
    names.add(extension.tool);
    tools.push(toolOf(spec.document, op, extension));
  }
  return tools;
}

function toolOf(document: OpenAPIV3_1.Document, op: Operation, extension: McpExtension): ToolDefinition {
  const defs: Record<string, JsonSchema> = {};
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  const places: Record<string, ArgumentPlace> = {};
  const excluded = new Set(extension.exclude ?? []);
  for (const parameter of op.parameters) {
    if (excluded.has(parameter.name) || parameter.in === 'cookie') continue;
    const name = parameter.in === 'header' ? parameter.name.toLowerCase().replace(/-/g, '_') : parameter.name;
    const schema = portable(document, (parameter.schema ?? {}) as JsonSchema, defs);
    properties[name] = parameter.description ? { ...schema, description: parameter.description } : schema;
    if (parameter.required) required.push(name);
    places[name] = { in: parameter.in as 'path' | 'query' | 'header', name: parameter.name };
  }
  for (const [name, schema] of Object.entries(op.body?.properties ?? {})) {
    if (excluded.has(name)) continue;
    // a name both in the query and in the body (the plugin reads either) is sent in the body
    if (places[name] && places[name].in !== 'query') {
      throw new Error(`${op.operationId}: body field ${name} has the name of a ${places[name].in} parameter`);
    }
    required.splice(0, required.length, ...required.filter((n) => n !== name));
    properties[name] = portable(document, schema as JsonSchema, defs);
    if (op.body?.required.has(name)) required.push(name);
    places[name] = { in: 'body' };
  }
  const success = successOf(document, op);
  const readOnly = op.method === 'get';
  const title = op.definition.summary ?? extension.tool;
  const inputSchema: ToolDefinition['inputSchema'] = { type: 'object', properties };
  if (required.length) inputSchema.required = required;
  if (Object.keys(defs).length) inputSchema.$defs = defs;
  return {
    name: extension.tool,
    title,
    description: [op.definition.summary, op.definition.description, extension.guidance]
      .filter((text): text is string => Boolean(text?.trim()))
      .map((text) => text.trim())
      .join('\n\n'),
    group: extension.group,
    operation: op,
    capability: op.capability,
    readOnly,
    inputSchema,
    outputSchema: success.json ? outputSchemaOf(document, success.json) : undefined,
    accept: success.json ? 'application/json' : (success.text ?? 'application/json'),
    annotations: {
      title,
      readOnlyHint: readOnly,
      destructiveHint: op.method === 'delete',
      idempotentHint: extension.idempotent ?? ['get', 'put', 'delete'].includes(op.method),
    },
    arguments: places,
  };
}

/** The JSON schema of the first 2xx answer, or the media type of its only (text) answer. */
function successOf(document: OpenAPIV3_1.Document, op: Operation): { json?: JsonSchema; text?: string } {
  const status = Object.keys(op.definition.responses ?? {}).find((code) => /^2\d\d$/.test(code));
  if (!status) return {};
  const response = resolve<OpenAPIV3_1.ResponseObject | undefined>(document, op.definition.responses?.[status]);
  const content = response?.content ?? {};
  const json = content['application/json']?.schema as JsonSchema | undefined;
  if (json) return { json };
  return { text: Object.keys(content)[0] };
}

/** MCP wants an object at the root of structured results; every JSON answer of this API is one. */
function outputSchemaOf(document: OpenAPIV3_1.Document, schema: JsonSchema): ToolDefinition['outputSchema'] {
  const defs: Record<string, JsonSchema> = {};
  const root = portable(document, schema, defs);
  const resolved = root.$ref ? defs[String(root.$ref).slice('#/$defs/'.length)] : root;
  if (resolved?.type !== 'object' && !resolved?.allOf && !resolved?.properties) {
    throw new Error(`an MCP output schema must describe an object: ${JSON.stringify(schema).slice(0, 80)}`);
  }
  return {
    type: 'object',
    ...root,
    ...(Object.keys(defs).length ? { $defs: defs } : {}),
  } as ToolDefinition['outputSchema'];
}

/**
 * A schema that stands alone: each `#/components/schemas/X` it reaches (transitively) is copied once into `defs`
 * and referred to as `#/$defs/X`, so recursive schemas stay finite; OpenAPI-only keywords and `x-` extensions go.
 */
function portable(document: OpenAPIV3_1.Document, schema: JsonSchema, defs: Record<string, JsonSchema>): JsonSchema {
  const rewrite = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(rewrite);
    if (!node || typeof node !== 'object') return node;
    const out: Record<string, unknown> = {};
    for (const [key, value] of Object.entries(node)) {
      if (OPENAPI_ONLY.has(key) || key.startsWith('x-')) continue;
      if (key === '$ref' && typeof value === 'string') {
        out.$ref = refOf(value);
        continue;
      }
      // `properties`, `$defs` and `patternProperties` hold names, not keywords: keep every name
      out[key] = isNameMap(key) ? mapValues(value as Record<string, unknown>, rewrite) : rewrite(value);
    }
    return out;
  };
  const refOf = (ref: string): string => {
    const match = /^#\/components\/schemas\/(.+)$/.exec(ref);
    if (!match) return ref;
    const name = match[1];
    if (!(name in defs)) {
      defs[name] = {}; // claimed before the walk, so that a cycle ends here
      defs[name] = rewrite(resolve(document, { $ref: ref })) as JsonSchema;
    }
    return `#/$defs/${name}`;
  };
  return rewrite(schema) as JsonSchema;
}

function isNameMap(key: string): boolean {
  return key === 'properties' || key === '$defs' || key === 'patternProperties' || key === 'dependentSchemas';
}

function mapValues(map: Record<string, unknown>, f: (value: unknown) => unknown): Record<string, unknown> {
  return Object.fromEntries(Object.entries(map).map(([key, value]) => [key, f(value)]));
}

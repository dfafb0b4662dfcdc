/**
 * One MCP server for one caller: the generated tools it may use, each call turned into the REST request it mirrors
 * and sent to `rest` (the same Express app in-process, src/mcp/dispatch.ts), and read-only resources (the OpenAPI
 * document, events by URI template) read through the same REST reads. What a result or an error says is what the
 * REST answer said (D101, D102).
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv-provider.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListResourcesRequestSchema,
  ListResourceTemplatesRequestSchema,
  ListToolsRequestSchema,
  McpError,
  ReadResourceRequestSchema,
  type Tool,
} from '@modelcontextprotocol/sdk/types.js';
import { NAMESPACE, type Language } from '../config';
import { ApiError, missingParams } from '../core/errors';
import { toWire } from '../http/error-handler';
import { can, type Caller } from '../users/roles';
import type { InnerRequest, InnerResponse } from './dispatch';
import type { ToolDefinition } from './tools';
import { checkedArguments } from './arguments';
import type { RawJson } from './raw-json';
import { bounded, CALL_CONCURRENCY } from './limits';

/** Sends one REST request (method, path from the service root, headers, JSON body) and returns the answer. */
export type Rest = (request: InnerRequest) => Promise<InnerResponse>;

export interface McpServerOptions {
  tools: ToolDefinition[];
  /** Text for the assistant about the whole server (the spec's top-level `x-mcp.instructions`). */
  instructions?: string;
  rest: Rest;
  /** The service's `BASE_PATH`. */
  basePath: string;
  /** Who is calling, as authenticated on the MCP request (undefined: anonymous). */
  caller?: Caller;
  /** Headers every REST request of this caller carries (credentials, host, forwarding). */
  headers: Record<string, string | undefined>;
  /** Everything else each REST request carries (client address, TLS, message language, a preset caller). */
  request: Omit<InnerRequest, 'method' | 'url' | 'headers' | 'body'>;
  version: string;
  /** Told of each tool call, before it runs (metrics). */
  onCall?: (tool: string) => void;
  /** Told of an unexpected failure, whose text the caller never sees (logs). */
  onError?: (error: unknown) => void;
  /**
   * Holds each structured content as the REST body itself, for a transport that splices it into the answer (the
   * HTTP endpoint); without it, the body is parsed.
   */
  rawJson?: RawJson;
}

export const SPEC_RESOURCE = 'calendar://openapi.json';
export const EVENT_TEMPLATE = 'calendar://events/{id}';
const EVENT_URI = /^calendar:\/\/events\/(\d+)$/;
const ETAG_META = 'calendar/etag';
/** The protocol's code for a resource that does not exist. */
const RESOURCE_NOT_FOUND = -32002;
/**
 * One JSON Schema validator for every server: left to itself, the SDK builds a new Ajv (with its formats) for each
 * server, and a stateless endpoint makes a server per request.
 */
const SCHEMA_VALIDATOR = new AjvJsonSchemaValidator();

/** Whether a caller may use a tool: its capability (none: anyone), and a read-only password only reads. */
export function mayUse(tool: ToolDefinition, caller: Caller | undefined): boolean {
  if (tool.capability && !(caller && can(caller, tool.capability))) return false;
  return tool.readOnly || caller?.appPassword?.scope !== 'read';
}

/** The tool as `tools/list` shows it. */
export function listed(tool: ToolDefinition): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: tool.inputSchema,
    ...(tool.outputSchema ? { outputSchema: tool.outputSchema } : {}),
    annotations: tool.annotations,
    _meta: { 'calendar/group': tool.group, 'calendar/operation': tool.operation.operationId },
  };
}

export function createMcpServer(options: McpServerOptions): Server {
  const server = new Server(
    { name: 'calendar-events', title: 'Calendar Events', version: options.version },
    {
      capabilities: { tools: {}, resources: {} },
      instructions: options.instructions,
      jsonSchemaValidator: SCHEMA_VALIDATOR,
    },
  );
  const byName = new Map(options.tools.map((tool) => [tool.name, tool]));
  const send = bounded(CALL_CONCURRENCY, options.rest);
  const rest = (method: string, url: string, extra: Record<string, string | undefined>, body?: unknown) =>
    send({ ...options.request, method, url, headers: { ...options.headers, ...extra }, body });
  const language = options.request.messageLanguage ?? 'en';
  const failure = (error: ApiError) => errorResult(JSON.stringify(toWire(error, language)));

  server.setRequestHandler(ListToolsRequestSchema, async () => ({
    tools: options.tools.filter((tool) => mayUse(tool, options.caller)).map(listed),
  }));

  server.setRequestHandler(CallToolRequestSchema, async ({ params }) => {
    const tool = byName.get(params.name);
    if (!tool) throw new McpError(ErrorCode.InvalidParams, `Unknown tool: ${params.name}`);
    options.onCall?.(tool.name);
    try {
      const checked = checkedArguments(tool, params.arguments ?? {});
      if ('error' in checked) return failure(checked.error);
      const request = restRequest(tool, checked.args, options.basePath);
      if ('missing' in request) return failure(missingParams(request.missing));
      const answer = await rest(tool.operation.method.toUpperCase(), request.url, request.headers, request.body);
      return toolResult(tool, answer, options.rawJson);
    } catch (error) {
      // what failed is for the server's log; the caller gets REST's generic answer
      options.onError?.(error);
      return failure(new ApiError(500, 'rest_internal_error', 'internal_error'));
    }
  });

  server.setRequestHandler(ListResourcesRequestSchema, async () => ({
    resources: [
      {
        uri: SPEC_RESOURCE,
        name: 'openapi',
        title: 'The OpenAPI document of this calendar',
        description: 'The OpenAPI 3.1 document every tool is generated from.',
        mimeType: 'application/json',
      },
    ],
  }));

  server.setRequestHandler(ListResourceTemplatesRequestSchema, async () => ({
    resourceTemplates: [
      {
        uriTemplate: EVENT_TEMPLATE,
        name: 'event',
        title: 'A calendar event',
        description: 'One event by its id, as `get_event` returns it (JSON).',
        mimeType: 'application/json',
      },
    ],
  }));

  server.setRequestHandler(ReadResourceRequestSchema, async ({ params }) => {
    const namespace = `${options.basePath}/${NAMESPACE}`;
    const event = EVENT_URI.exec(params.uri);
    const path = params.uri === SPEC_RESOURCE ? '/doc' : event ? `/events/${event[1]}` : undefined;
    if (!path) throw new McpError(RESOURCE_NOT_FOUND, `Unknown resource: ${params.uri}`);
    const answer = await rest('GET', namespace + path, { accept: 'application/json' });
    if (answer.status !== 200) {
      const error = parse(answer.body) as { message?: string } | undefined;
      throw new McpError(
        answer.status === 404 ? RESOURCE_NOT_FOUND : ErrorCode.InternalError,
        error?.message ?? `HTTP ${answer.status}`,
        error,
      );
    }
    return { contents: [{ uri: params.uri, mimeType: 'application/json', text: answer.body }] };
  });
  return server;
}

/** The REST request of a call: each argument in its place; names of missing path parameters otherwise. */
function restRequest(
  tool: ToolDefinition,
  args: Record<string, unknown>,
  basePath: string,
): { url: string; headers: Record<string, string>; body?: Record<string, unknown> } | { missing: string[] } {
  const query = new URLSearchParams();
  const headers: Record<string, string> = { accept: tool.accept };
  const body: Record<string, unknown> = {};
  const pathValues: Record<string, string> = {};
  for (const [name, value] of Object.entries(args)) {
    const place = tool.arguments[name]; // the arguments are checked: each has its place
    if (place.in === 'body') body[name] = value;
    else if (place.in === 'path') pathValues[place.name] = scalar(value);
    else if (place.in === 'header') headers[place.name.toLowerCase()] = scalar(value);
    else for (const item of Array.isArray(value) ? value : [value]) query.append(place.name, scalar(item));
  }
  const missing = tool.operation.parameters
    .filter((p) => p.in === 'path' && !(p.name in pathValues))
    .map((p) => p.name);
  if (missing.length) return { missing };
  const path = tool.operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(pathValues[name]));
  const search = query.toString();
  return {
    url: `${basePath}/${NAMESPACE}${path}${search ? `?${search}` : ''}`,
    headers,
    body: tool.operation.body ? body : undefined,
  };
}

function scalar(value: unknown): string {
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/** A 2xx answer is the result (JSON as structured content); any other is an error result with the API's error. */
function toolResult(tool: ToolDefinition, answer: InnerResponse, rawJson?: RawJson): CallToolResult {
  if (answer.status < 200 || answer.status >= 300) return errorResult(answer.body);
  const etag = typeof answer.headers.etag === 'string' ? answer.headers.etag : undefined;
  const content: CallToolResult['content'] = [{ type: 'text', text: answer.body }];
  // the version an update or delete sends back as `if_match`
  if (etag) content.push({ type: 'text', text: `ETag: ${etag}` });
  const result: CallToolResult = { content, ...(etag ? { _meta: { [ETAG_META]: etag } } : {}) };
  if (tool.outputSchema) result.structuredContent = structured(answer.body, rawJson);
  return result;
}

/** A JSON answer as structured content: held whole when it can be (an object's text), parsed otherwise. */
function structured(body: string, rawJson?: RawJson): Record<string, unknown> {
  return rawJson && body.startsWith('{') ? rawJson.hold(body) : (parse(body) as Record<string, unknown>);
}

function errorResult(body: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text: body }] };
}

function parse(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * The language of messages a `/mcp` request asks for with `Accept-Language`, if any of ours. The site's language is
 * offered first, so that `*` (what many HTTP clients send by default) means the site's language, as no header does;
 * a real language with a higher weight than `*` still wins (`de, *;q=0.5` is German).
 */
export function acceptedLanguage(
  header: string | undefined,
  accepts: (...languages: string[]) => string | false,
  languages: readonly Language[],
  siteLanguage: Language,
): Language | undefined {
  if (!header) return undefined;
  const chosen = accepts(siteLanguage, ...languages.filter((l) => l !== siteLanguage));
  return chosen ? (languages.find((l) => l === chosen.toLowerCase()) ?? undefined) : undefined;
}

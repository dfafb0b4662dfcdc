/**
 * `/mcp`: the Model Context Protocol over Streamable HTTP (stateless: each POST is a fresh server and transport, so
 * any node answers any request, as for REST). Before the protocol: DNS rebinding protection (Host and Origin, D103),
 * the service's body limit, and the REST authentication (HTTP Basic; wrong credentials are 401, repeated failures
 * 429). Tool calls then run as REST requests through `app` (D101), as the caller identified here: once a POST, not
 * again for each call (D141). The SDK's web-standard transport answers the protocol: it gets a `Request` of the
 * headers alone (the body is parsed already) and its `Response` is written whole, with no stream between Node and
 * the web. The room's one entry for the HTTP side.
 */
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import * as streamable from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import express, { type Express, type Request, type RequestHandler, type Response, Router } from 'express';
import { LANGUAGES } from '../config';
import type { AppContext } from '../http/context';
import { identify } from '../http/auth';
import { dispatch } from './dispatch';
import { acceptedLanguage, createMcpServer } from './server';
import { generateTools, instructionsOf } from './tools';
import { batchLimit } from './limits';
import { RawJson } from './raw-json';

/** The headers of the MCP request that its REST requests carry too (not its credentials: they carry its caller). */
const FORWARDED = ['host', 'user-agent', 'x-forwarded-for', 'x-forwarded-proto', 'x-forwarded-host'];

/** The `/mcp` router; `app` is the service itself, into which tool calls are dispatched. */
export function mcpEndpoint(context: AppContext, app: () => Express): Router {
  const { config, spec, metrics } = context;
  const tools = generateTools(spec);
  // each call is counted, not only the one POST that carries a batch of them
  const calls = metrics.counter('mcp_tool_calls_total', 'MCP tool calls (each call of a batch)', ['tool']);
  const instructions = instructionsOf(spec);
  const router = Router();
  router.use(hostHeaderValidation(config.mcpAllowedHosts), allowedOrigin(config.mcpAllowedHosts));
  router.post('/', express.json({ limit: config.bodyLimit }), batchLimit, async (req, res) => {
    const caller = await identify(req);
    const rawJson = new RawJson();
    const server = createMcpServer({
      tools,
      instructions,
      rest: (request) => dispatch(app(), request),
      basePath: config.basePath,
      caller,
      headers: Object.fromEntries(FORWARDED.map((name) => [name, req.get(name)])),
      request: {
        remoteAddress: req.socket.remoteAddress,
        encrypted: Boolean((req.socket as { encrypted?: boolean }).encrypted),
        caller,
        messageLanguage: acceptedLanguage(
          req.get('accept-language'),
          (...languages) => req.acceptsLanguages(...languages),
          LANGUAGES,
          config.defaultLanguage,
        ),
      },
      version: spec.document.info.version,
      onCall: (tool) => calls.inc({ tool }),
      onError: (err) => req.log?.error({ err }, 'MCP tool call failed'),
      rawJson,
    });
    const transport = new streamable.WebStandardStreamableHTTPServerTransport({
      sessionIdGenerator: undefined,
      enableJsonResponse: true,
    });
    res.on('close', () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await send(res, await transport.handleRequest(webRequest(req), { parsedBody: req.body }), rawJson);
  });
  // stateless: no server-sent event stream to open and no session to end
  router.all('/', (_req, res) => {
    res.setHeader('Allow', 'POST');
    res.status(405).json({ jsonrpc: '2.0', error: { code: -32000, message: 'Method not allowed.' }, id: null });
  });
  return router;
}

/** What the transport reads of a request: method, URL and headers (the body is `parsedBody`). */
function webRequest(req: Request): globalThis.Request {
  const headers = new Headers();
  for (let i = 0; i < req.rawHeaders.length; i += 2) headers.append(req.rawHeaders[i], req.rawHeaders[i + 1]);
  return new globalThis.Request(`${req.protocol}://${req.get('host')}${req.originalUrl}`, {
    method: req.method,
    headers,
  });
}

/**
 * The transport's answer, whole: in JSON response mode its body is one JSON text (or none), never an event stream;
 * the REST bodies held as structured content are spliced into it.
 */
async function send(res: Response, answer: globalThis.Response, rawJson: RawJson): Promise<void> {
  res.status(answer.status);
  answer.headers.forEach((value, name) => {
    res.setHeader(name, value);
  });
  // the bytes as they are when nothing was held: `tools/list` is some 300 KB, and 100 sessions list at once
  res.end(rawJson.holding ? rawJson.fill(await answer.text()) : Buffer.from(await answer.arrayBuffer()));
}

/** A browser's `Origin`, when sent, must name an allowed host too (any port, as for `Host`). */
function allowedOrigin(hosts: string[]): RequestHandler {
  return (req: Request, res, next) => {
    const origin = req.get('origin');
    if (origin === undefined) return next();
    let hostname: string | undefined;
    try {
      hostname = new URL(origin).hostname;
    } catch {
      hostname = undefined;
    }
    if (hostname && hosts.includes(hostname)) return next();
    res.status(403).json({ jsonrpc: '2.0', error: { code: -32000, message: `Invalid Origin: ${origin}` }, id: null });
  };
}

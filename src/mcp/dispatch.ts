/**
 * A tool call becomes the REST request it mirrors, handled in-process by the same Express app (docs/decisions.md
 * D101): a real `http.IncomingMessage` with the method, path, query, JSON body and the MCP request's credentials and
 * client address, and a real `http.ServerResponse` whose output is captured instead of sent. So authentication, the
 * login throttle, capability checks, validation, handlers, audit entries and change-feed records are those of the
 * REST call; no handler knows MCP exists.
 */
import { Socket } from 'node:net';
import type { Express } from 'express';
import type { Language } from '../config';
import { MESSAGE_LANGUAGE } from '../http/language';
import { requestClasses } from '../http/request-classes';
import type { Caller } from '../users/roles';

export interface InnerRequest {
  method: string;
  /** Path and query string, from the root of the service. */
  url: string;
  headers: Record<string, string | undefined>;
  body?: unknown;
  /** The address of the client of the MCP request (login throttle, audit trail). */
  remoteAddress?: string;
  /** Whether the MCP request came over TLS. */
  encrypted?: boolean;
  /** The language of messages when the call names none (the MCP request's `Accept-Language`). */
  messageLanguage?: Language;
  /**
   * A caller already known: the caller the MCP request was identified as (its calls are not identified again), or,
   * for a process that is trusted with its database (the CLI's `mcp --user`), the named user every CLI command acts
   * as. The request carries no credentials and starts as this caller; a read-only password still only reads.
   */
  caller?: Caller;
}

export interface InnerResponse {
  status: number;
  headers: Record<string, string | string[] | number | undefined>;
  body: string;
}

/**
 * Each app's request classes, made once (http/request-classes.ts: objects born with the app's prototypes stay
 * fast).
 */
const classes = new WeakMap<Express, ReturnType<typeof requestClasses>>();

/** Runs one request through the app and resolves with what it answered. */
export function dispatch(app: Express, request: InnerRequest): Promise<InnerResponse> {
  let made = classes.get(app);
  if (!made) classes.set(app, (made = requestClasses(app)));
  const { IncomingMessage, ServerResponse } = made;
  const payload = request.body === undefined ? undefined : Buffer.from(JSON.stringify(request.body));
  const socket = new Socket();
  Object.defineProperty(socket, 'remoteAddress', { value: request.remoteAddress ?? '127.0.0.1' });
  Object.defineProperty(socket, 'encrypted', { value: request.encrypted ?? false });
  const req = new IncomingMessage(socket);
  req.method = request.method;
  req.url = request.url;
  req.httpVersion = '1.1';
  req.httpVersionMajor = 1;
  req.httpVersionMinor = 1;
  for (const [name, value] of Object.entries(request.headers)) {
    if (value !== undefined) req.headers[name.toLowerCase()] = value;
  }
  if (payload) {
    req.headers['content-type'] = 'application/json';
    req.headers['content-length'] = String(payload.length);
    req.push(payload);
  }
  req.push(null);
  req.complete = true;
  if (request.messageLanguage) (req as unknown as Record<symbol, Language>)[MESSAGE_LANGUAGE] = request.messageLanguage;

  return new Promise((resolve, reject) => {
    const res = new ServerResponse(req);
    if (request.caller) Object.assign(res, { locals: { caller: request.caller } });
    const chunks: Buffer[] = [];
    const collect = (chunk: unknown, encoding?: unknown) => {
      if (chunk === undefined || chunk === null || typeof chunk === 'function') return;
      chunks.push(
        Buffer.isBuffer(chunk)
          ? chunk
          : Buffer.from(chunk as string, typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8'),
      );
    };
    res.write = ((chunk: unknown, encoding?: unknown) => {
      collect(chunk, encoding);
      return true;
    }) as typeof res.write;
    res.end = ((chunk?: unknown, encoding?: unknown) => {
      collect(chunk, encoding);
      const body = req.method === 'HEAD' ? '' : Buffer.concat(chunks).toString('utf8');
      resolve({ status: res.statusCode, headers: res.getHeaders(), body });
      res.emit('finish');
      res.emit('close');
      return res;
    }) as typeof res.end;
    try {
      app(req as never, res as never, (error?: unknown) => {
        if (error) reject(error);
      });
    } catch (error) {
      reject(error);
    }
  });
}

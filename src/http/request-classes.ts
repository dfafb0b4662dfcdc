/**
 * The HTTP server for an Express app, created with request and response classes whose prototypes are already the
 * app's: Express then finds `req`/`res` with the right prototype and its per-request `Object.setPrototypeOf`
 * costs nothing, where changing the prototype of a live object otherwise deoptimises every later access to it
 * (expressjs/express#5998; a stock route answered ~2.4× more requests per second on Node 20 here).
 */
import http from 'node:http';
import type { Express } from 'express';
import type { Language } from '../config';
import { answerClientErrors } from './client-errors';

export function createHttpServer(
  app: Express,
  options: http.ServerOptions = {},
  language: Language = 'en',
): http.Server {
  const server = http.createServer({ ...options, ...requestClasses(app) }, app);
  answerClientErrors(server, language);
  return server;
}

/**
 * The request and response classes of an app, for a server and for requests made in-process (src/mcp/dispatch.ts),
 * which then run the app at the speed of a network request.
 */
export function requestClasses(app: Express): Required<Pick<http.ServerOptions, 'IncomingMessage' | 'ServerResponse'>> {
  function IncomingMessage(this: http.IncomingMessage, socket: import('node:net').Socket) {
    http.IncomingMessage.call(this, socket);
  }
  function ServerResponse(this: http.ServerResponse, req: http.IncomingMessage, options?: unknown) {
    (http.ServerResponse as unknown as (this: unknown, ...args: unknown[]) => void).call(this, req, options);
  }
  IncomingMessage.prototype = app.request;
  ServerResponse.prototype = app.response;
  return {
    IncomingMessage: IncomingMessage as unknown as typeof http.IncomingMessage,
    ServerResponse: ServerResponse as unknown as typeof http.ServerResponse,
  };
}

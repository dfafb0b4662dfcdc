/** The language of a request: a valid `i18n_language` query parameter, else DEFAULT_LANGUAGE. */
import type { Request } from 'express';
import { LANGUAGES, type Language } from '../config';

export function requestLanguage(req: Pick<Request, 'app'> & { query: object }): Language {
  return askedLanguage(req) ?? defaultLanguage(req);
}

/**
 * A request made in-process for another protocol (an MCP tool call, src/mcp/dispatch.ts) may carry, under this
 * symbol, the language its caller reads messages in. No request from the network can set it (D102).
 */
export const MESSAGE_LANGUAGE = Symbol('message language');

/**
 * The language of error messages: `i18n_language` when the request names one, else the in-process caller's
 * (`MESSAGE_LANGUAGE`), else DEFAULT_LANGUAGE. Content keeps `requestLanguage`: which text a write sets is never
 * chosen by anything but `i18n_language` (D31).
 */
export function messageLanguage(req: Pick<Request, 'app'> & { query: object }): Language {
  return askedLanguage(req) ?? (req as { [MESSAGE_LANGUAGE]?: Language })[MESSAGE_LANGUAGE] ?? defaultLanguage(req);
}

function askedLanguage(req: { query: object }): Language | undefined {
  const value = (req.query as { i18n_language?: unknown } | undefined)?.i18n_language;
  const asked = typeof value === 'string' ? value : undefined;
  return asked && (LANGUAGES as readonly string[]).includes(asked) ? (asked as Language) : undefined;
}

function defaultLanguage(req: Pick<Request, 'app'>): Language {
  return (req.app?.locals?.context?.config?.defaultLanguage as Language | undefined) ?? 'en';
}

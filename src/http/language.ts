/** The language of a request: a valid `i18n_language` query parameter, else DEFAULT_LANGUAGE. */
import type { Request } from 'express';
import { LANGUAGES, type Language } from '../config';

export function requestLanguage(req: Pick<Request, 'app'> & { query: object }): Language {
  const value = (req.query as { i18n_language?: unknown } | undefined)?.i18n_language;
  const asked = typeof value === 'string' ? value : undefined;
  if (asked && (LANGUAGES as readonly string[]).includes(asked)) return asked as Language;
  return (req.app?.locals?.context?.config?.defaultLanguage as Language | undefined) ?? 'en';
}

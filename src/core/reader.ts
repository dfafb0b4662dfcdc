/**
 * A reader: who reads, in which language, where the URLs of what they read point, on which connection, with which
 * cache. Everything that renders a record takes one, and nothing in it is a request: `http/reader.ts` makes one from
 * a request, `offlineReader` from the configuration for work that has no request (webhook messages, the CLI).
 */
import { NAMESPACE, type Config, type Language } from '../config';
import type { RepresentationCache } from '../cache/representations';
import type { Witness } from '../cache/proofs';
import type { Executor } from '../db/types';
import type { Caller } from '../users/roles';

/** What rendering needs besides the rows: the URLs records name and the site's settings (its time zone). */
export interface RenderContext {
  /** `{base_url}/calendar/events/v1`, no trailing slash: where `rest_url` and `urls` point. */
  root: string;
  /** The public site (`url` fields). */
  site: string;
  config: Readonly<Config>;
  /** `host/path` of the site, the prefix of global ids. */
  globalPrefix: string;
}

export interface Reader {
  db: Executor;
  /** Undefined: anonymous. */
  caller: Caller | undefined;
  language: Language;
  config: Readonly<Config>;
  render: RenderContext;
  /** Rendered records by what they depend on (src/cache/). */
  cache: RepresentationCache;
  /** Gathers what the read shows, when its answer may be kept with a proof (cache/proofs.ts). */
  witness?: Witness;
}

/** What readers are made of that does not change from one read to the next. */
export interface ReadServices {
  db: Executor;
  config: Readonly<Config>;
  cache: RepresentationCache;
}

/** The render context of a site reached at `baseUrl` (scheme, host and BASE_PATH). */
export function renderContextAt(config: Readonly<Config>, baseUrl: string): RenderContext {
  const site = config.publicUrl ?? baseUrl;
  return { root: `${baseUrl}/${NAMESPACE}`, site, config, globalPrefix: globalPrefix(site) };
}

/** The prefix of a site's global ids (and feed UIDs): its URL without the scheme, `host[:port][/path]`. */
export function globalPrefix(site: string): string {
  return site.replace(/^https?:\/\//, '');
}

/** The site URL when no request names one: PUBLIC_URL, else the listening address (`localhost` for all addresses). */
export function offlineSite(config: Readonly<Config>): string {
  return config.publicUrl ?? `http://${config.host === '0.0.0.0' ? 'localhost' : config.host}:${config.port}`;
}

/**
 * A reader for work with no request (webhook messages): the public site stands for the host a caller would have
 * reached, anonymous and in the site's language unless told otherwise.
 */
export function offlineReader(
  { db, config, cache }: ReadServices,
  { caller, language = config.defaultLanguage }: { caller?: Caller; language?: Language } = {},
): Reader {
  const { protocol, host } = new URL(offlineSite(config));
  const render = renderContextAt(config, `${protocol}//${host}${config.basePath}`);
  return { db, caller, language, config, render, cache };
}

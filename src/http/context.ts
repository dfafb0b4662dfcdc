/** What every handler can reach: configuration, database, spec. Stored once on `app.locals`. */
import type { Request } from 'express';
import type { Config } from '../config';
import type { Db } from '../db/types';
import type { LoadedSpec } from './spec';
import type { Throttle } from './throttle';
import type { Metrics } from '../metrics/registry';
import type { AnswerCache } from '../cache/answers';
import type { RepresentationCache } from '../cache/representations';

export interface AppContext {
  config: Readonly<Config>;
  db: Db;
  spec: LoadedSpec;
  throttle: Throttle;
  metrics: Metrics;
  /** Rendered records by what they depend on (src/cache/). */
  cache: RepresentationCache;
  /** Whole answers of repeated reads (src/cache/answers.ts). */
  answers: AnswerCache;
}

export function context(req: Pick<Request, 'app'>): AppContext {
  return req.app.locals.context as AppContext;
}

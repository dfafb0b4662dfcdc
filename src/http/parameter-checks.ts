/**
 * Checks no schema can express, on the parameters the spec declares (undeclared ones are ignored, as everywhere):
 * query parameters sent in object form (`a[b]=1`), which the validator cannot handle (before validation), and NUL
 * characters (PostgreSQL text cannot hold them) or nesting deeper than any field needs (per operation, after it).
 * Each is 400 `rest_invalid_param` naming the parameter. An empty list parameter (`include=`, `tags[]=`) is
 * dropped before validation: WordPress reads it as an empty list, which filters nothing (docs/decisions.md D93);
 * one whose schema needs items (`minItems`, as `status`) is left to the validator.
 */
import type { RequestHandler } from 'express';
import { invalidParams, type ParamProblem } from '../core/errors';
import type { LoadedSpec, Operation } from './spec';

const MAX_DEPTH = 32;

/** The problem of a value, if any: a NUL somewhere in it, or nesting past MAX_DEPTH. */
function problemOf(value: unknown, depth = 0): ParamProblem | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? ['param_nul'] : undefined;
  if (!value || typeof value !== 'object') return undefined;
  if (depth >= MAX_DEPTH) return ['invalid_param'];
  for (const [key, item] of Object.entries(value)) {
    if (key.includes('\u0000')) return ['param_nul'];
    const problem = problemOf(item, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

export function requestGuard(spec: LoadedSpec): RequestHandler {
  const queryNames = new Set(
    spec.operations.flatMap((op) => op.parameters.filter((p) => p.in === 'query').map((p) => p.name)),
  );
  const listNames = new Set(
    spec.operations.flatMap((op) =>
      op.parameters
        .filter((p) => {
          // a list that must have items (`status`) says so with `minItems`: its empty value stays a 400
          const schema = (p.schema ?? {}) as { type?: unknown; minItems?: number };
          return p.in === 'query' && schema.type === 'array' && !schema.minItems;
        })
        .map((p) => p.name),
    ),
  );
  return (req, _res, next) => {
    const problems: Record<string, ParamProblem> = {};
    const query = req.query as Record<string, unknown>;
    const empty: string[] = [];
    for (const [name, value] of Object.entries(query)) {
      if (!queryNames.has(name)) continue;
      if (value !== null && typeof value === 'object' && !Array.isArray(value)) problems[name] = ['invalid_param'];
      if (listNames.has(name) && [value].flat().every((item) => item === '')) empty.push(name);
    }
    if (Object.keys(problems).length) throw invalidParams(problems);
    if (empty.length) {
      // Express 5 parses `req.query` anew on every read: the validator and the handlers must see this one
      const cleaned = Object.fromEntries(Object.entries(query).filter(([name]) => !empty.includes(name)));
      Object.defineProperty(req, 'query', { value: cleaned, writable: true, configurable: true, enumerable: true });
    }
    next();
  };
}

/** The same for the parameters one operation declares (path, query, body), once its route has decoded them. */
export function assertClean(op: Operation, values: { params: object; query: object; body: unknown }): void {
  const problems: Record<string, ParamProblem> = {};
  const check = (name: string, value: unknown) => {
    const problem = problemOf(value);
    if (problem) problems[name] = problem;
  };
  for (const p of op.parameters) {
    const source = p.in === 'path' ? values.params : p.in === 'query' ? values.query : undefined;
    if (source && p.name in source) check(p.name, (source as Record<string, unknown>)[p.name]);
  }
  if (values.body && typeof values.body === 'object') {
    for (const name of Object.keys(op.body?.properties ?? {})) {
      if (name in values.body) check(name, (values.body as Record<string, unknown>)[name]);
    }
  }
  if (Object.keys(problems).length) throw invalidParams(problems);
}

/**
 * Checks no schema can express, before validation: NUL characters (PostgreSQL text cannot hold them) anywhere in
 * the query or body, and query parameters sent in object form (`a[b]=1`), which the validator cannot handle. Both
 * are 400 `rest_invalid_param` naming the parameter.
 */
import type { RequestHandler } from 'express';
import { invalidParams, type ParamProblem } from './errors';
import type { LoadedSpec } from './spec';

function hasNul(value: unknown): boolean {
  if (typeof value === 'string') return value.includes('\u0000');
  if (Array.isArray(value)) return value.some(hasNul);
  if (value && typeof value === 'object') return Object.entries(value).some(([key, v]) => key.includes('\u0000') || hasNul(v));
  return false;
}

export function requestGuard(spec: LoadedSpec): RequestHandler {
  const declaredQuery = new Set(spec.operations.flatMap((op) => op.parameters.filter((p) => p.in === 'query').map((p) => p.name)));
  return (req, _res, next) => {
    const problems: Record<string, ParamProblem> = {};
    for (const [name, value] of Object.entries(req.query as Record<string, unknown>)) {
      if (hasNul(value) || hasNul(name)) problems[name] = ['param_nul'];
      else if (declaredQuery.has(name) && value !== null && typeof value === 'object' && !Array.isArray(value)) problems[name] = ['invalid_param'];
    }
    if (req.body && typeof req.body === 'object') {
      for (const [name, value] of Object.entries(req.body as Record<string, unknown>)) {
        if (hasNul(value) || hasNul(name)) problems[name] = ['param_nul'];
      }
    }
    if (Object.keys(problems).length) throw invalidParams(problems);
    next();
  };
}

/** Path parameters, once the route has decoded them. */
export function assertNoNul(params: Record<string, unknown>): void {
  const bad = Object.keys(params).filter((name) => hasNul(params[name]));
  if (bad.length) throw invalidParams(Object.fromEntries(bad.map((name) => [name, ['param_nul'] as ParamProblem])));
}

/**
 * express-openapi-validator 5.6.2 finds the operation of a request by compiling every spec route with path-to-regexp
 * anew, on every request, until one matches (middlewares/openapi.metadata.js `lookupRoute`): ~15 compilations per
 * request here, a few percent of a point read. Until its fix lands (express-openapi-validator PR #1217), the copy of
 * path-to-regexp the validator loads compiles each route once: the result depends only on the route and the
 * options, and a non-global RegExp keeps no state between `exec` calls.
 */
import { createRequire } from 'node:module';

type PathToRegexp = (
  path: string,
  options?: { sensitive?: boolean; strict?: boolean },
) => { regexp: RegExp; keys: unknown[] };

let done = false;

export function compileValidatorRoutesOnce(): void {
  if (done) return;
  done = true;
  const fromValidator = createRequire(require.resolve('express-openapi-validator'));
  const module = fromValidator('path-to-regexp') as { pathToRegexp: PathToRegexp };
  const compile = module.pathToRegexp;
  const compiled = new Map<string, ReturnType<PathToRegexp>>();
  module.pathToRegexp = (path, options) => {
    if (typeof path !== 'string') return compile(path, options);
    const key = `${options?.sensitive ? 1 : 0}${options?.strict ? 1 : 0}${path}`;
    let result = compiled.get(key);
    if (!result) compiled.set(key, (result = compile(path, options)));
    return result;
  };
}

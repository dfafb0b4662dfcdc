/**
 * Request (and, in tests, response) validation against the bundled spec by express-openapi-validator, with types
 * coerced where WordPress coerces them and nowhere else (docs/decisions.md D90):
 * - path and query parameters are text on the wire: the validator always coerces them (`"5"` → 5);
 * - a form-encoded body is text too, and WordPress reads `venue=12` or `all_day=1` from a form: coerced;
 * - a JSON body carries real types: `{"name": false}`, `{"name": 42}` or `{"description": null}` is 400
 *   `rest_invalid_param` naming the field, as the plugin answers, never stored as `"false"`, `"42"` or `""`.
 * The validator applies one `coerceTypes` to every body, so each kind gets an instance of its own; the form one is
 * made on the first form request (most clients never send one).
 */
import express, { type RequestHandler } from 'express';
import * as OpenApiValidator from 'express-openapi-validator';
import { SPEC_FORMATS } from './spec-formats';

type ApiSpec = Parameters<typeof OpenApiValidator.middleware>[0]['apiSpec'];

export function specValidator(
  apiSpec: () => ApiSpec,
  { namespace, validateResponses }: { namespace: string; validateResponses: boolean },
): RequestHandler {
  const make = (coerceBodies: boolean): RequestHandler => {
    const router = express.Router();
    router.use(
      OpenApiValidator.middleware({
        apiSpec: apiSpec(),
        // unknown query parameters are ignored, as WordPress ignores them (docs/decisions.md D26): a client of the
        // plugin may send its own (cache busters, `_fields`, `_embed`) and must not be refused for them
        validateRequests: { allowUnknownQueryParameters: true, coerceTypes: coerceBodies, allErrors: true },
        validateResponses: validateResponses ? { allErrors: true } : false,
        validateSecurity: false,
        formats: SPEC_FORMATS,
        $refParser: { mode: 'dereference' },
        ignorePaths: (path: string) => !path.startsWith(namespace),
      }),
    );
    return router;
  };
  const typed = make(false);
  let form: RequestHandler | undefined;
  return (req, res, next) => {
    if (req.is('application/x-www-form-urlencoded')) return (form ??= make(true))(req, res, next);
    return typed(req, res, next);
  };
}

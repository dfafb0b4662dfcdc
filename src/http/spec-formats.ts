/**
 * The spec's own `format` names (docs/decisions.md D135). Each names a grammar that JSON Schema cannot write down and
 * that the service's own reader judges, with its own message: `strtotime` (PHP's date texts or a Unix timestamp,
 * domain/dates.ts), `iso-8601` (an instant in ISO 8601, the audit trail's filters) and `http-url` (an absolute
 * http(s) URL or `""`, posts/fields.ts). Validators know the names and leave the judging to those readers; fuzzers
 * are given a generator for each (scripts/schemathesis_hooks.py).
 */
export const SPEC_FORMATS = { strtotime: true, 'iso-8601': true, 'http-url': true } as const;

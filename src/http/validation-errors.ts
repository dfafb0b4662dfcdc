/**
 * Maps express-openapi-validator errors onto the WordPress error codes (STYLE.md C8): missing required parameters →
 * `rest_missing_callback_param`, any other failed check → `rest_invalid_param` with one message per parameter,
 * unknown route or method → `rest_no_route` (WordPress never answers 405).
 */
import { error as validatorErrors } from 'express-openapi-validator';
import type { MessageKey } from '../i18n/messages';
import { ApiError, invalidParams, missingParams, ticketsUnavailable, type ParamProblem } from '../core/errors';

/** One failed check, as the validator reports it: `/query/per_page`, a message, `<keyword>.openapi.validation`. */
export interface ValidatorItem {
  path?: string;
  message?: string;
  errorCode?: string;
}

interface ValidatorError {
  status: number;
  errors?: ValidatorItem[];
  message?: string;
}

// every validator error class extends its (unexported) HttpError
const HttpError = Object.getPrototypeOf(validatorErrors.BadRequest) as abstract new (
  ...args: never[]
) => ValidatorError;

function isValidatorError(err: unknown): err is ValidatorError {
  return err instanceof HttpError;
}

export function translateValidatorError(err: unknown): ApiError | undefined {
  if (!isValidatorError(err)) return undefined;
  switch (err.status) {
    case 404:
    case 405:
      return new ApiError(404, 'rest_no_route', 'no_route');
    case 413:
      return new ApiError(413, 'rest_payload_too_large', 'payload_too_large');
    case 415:
      return new ApiError(415, 'rest_unsupported_media_type', 'unsupported_media_type');
    case 400:
      return fromItems(err.errors ?? []);
    default:
      return undefined;
  }
}

/** The WordPress error for a list of failed checks (also of checks made by other protocols, src/mcp/). */
export function fromItems(items: ValidatorItem[]): ApiError {
  // WordPress routes match ids with `\d+`: a path that does not fit is no route at all (docs/compatibility.md §1.1),
  // nor is one the validator cannot decode (`/events/occurrences/%`: its item's path is the request's path)
  const noRoute = (item: ValidatorItem) =>
    item.path?.startsWith('/params/') || item.message?.startsWith('malformed uri');
  if (items.some(noRoute)) return new ApiError(404, 'rest_no_route', 'no_route');
  // only a top-level field is a missing parameter; a required key inside a value makes the parameter invalid
  const missing = items
    .filter((item) => item.errorCode === 'required.openapi.validation' && (item.path ?? '').split('/').length === 3)
    .map(parameterName);
  if (missing.length) return missingParams([...new Set(missing)]);
  // the spec admits only the false values of `ticketed`: any other gets the plugin's answer
  if (items.length && items.every(isTicketedRefusal)) return ticketsUnavailable();
  const params: Record<string, ParamProblem> = {};
  for (const item of items) {
    const name = parameterName(item);
    params[name] ??= problem(item);
  }
  return invalidParams(Object.keys(params).length ? params : { body: ['invalid_param'] });
}

function isTicketedRefusal(item: ValidatorItem): boolean {
  return item.path === '/query/ticketed';
}

/** `/query/per_page`, `/body/venue/zip`, `/params/id` → the top-level parameter name; a header as the spec spells it. */
function parameterName(item: ValidatorItem): string {
  const [, where, name] = (item.path ?? '').split('/');
  if (!name) return 'body';
  const decoded = decodeURIComponent(name.replace(/~1/g, '/').replace(/~0/g, '~'));
  return where === 'headers'
    ? decoded.replace(/(^|-)([a-z])/g, (_all, dash, letter) => dash + letter.toUpperCase())
    : decoded;
}

const KEYWORD_PROBLEMS: Record<string, (text: string) => ParamProblem> = {
  type: (text) => ['param_type', { type: text.replace(/^must be /, '').replace(/,/g, ', ') }],
  minimum: (text) => ['param_minimum', { limit: number(text) }],
  maximum: (text) => ['param_maximum', { limit: number(text) }],
  minLength: (text) => ['param_min_length', { limit: number(text) }],
  maxLength: (text) => ['param_max_length', { limit: number(text) }],
  // the validator prints each allowed value as text, so `true` and `'true'` would both show as "true"
  enum: (text) => ['param_enum', { values: [...new Set(allowed(text).split(', '))].join(', ') || '…' }],
  // a WordPress-style boolean (schemas/Flag.yaml) spells its values as a case-blind pattern: name them instead
  pattern: (text) =>
    text.includes(FLAG_PATTERN) ? ['param_enum', { values: 'true, false, 1, 0' }] : ['param_pattern'],
  format: (text) => ['param_format', { format: /"([^"]+)"/.exec(text)?.[1] ?? 'value' }],
  oneOf: () => ['param_one_of'],
  anyOf: () => ['param_one_of'],
};

const FLAG_PATTERN = '^(?:[Tt][Rr][Uu][Ee]|[Ff][Aa][Ll][Ss][Ee]|1|0)$';

function allowed(text: string): string {
  return text.split(': ').slice(1).join(': ');
}

function problem(item: ValidatorItem): ParamProblem {
  const keyword = (item.errorCode ?? '').replace('.openapi.validation', '');
  // the key's pattern says what its own message says: 1 to 255 visible ASCII characters, quoted or not
  if (item.path === '/headers/idempotency-key') return ['idempotency_key_invalid'];
  const make = KEYWORD_PROBLEMS[keyword];
  return make ? make(item.message ?? '') : ['invalid_param' as MessageKey];
}

function number(text: string): number {
  return Number(/-?\d+(\.\d+)?/.exec(text)?.[0] ?? NaN);
}

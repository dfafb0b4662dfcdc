/**
 * The service's error type: what services, rules and importers throw when a request cannot be done, with the
 * status and WordPress code it answers and the message key it is told in (in the caller's language). Knows
 * nothing of HTTP: `http/error-handler.ts` turns it into the wire shape `{code, message, data: {status, …}}`.
 */
import type { MessageKey } from '../i18n/messages';

export type MessageValues = Record<string, string | number>;

/** A parameter problem: `[key, values]` of the message, so it can be rendered in the caller's language. */
export type ParamProblem = [MessageKey, MessageValues?];

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    readonly messageKey: MessageKey,
    readonly values: MessageValues = {},
    /** Extra members of `data` (already in wire form), e.g. `term_id`. */
    readonly data: Record<string, unknown> = {},
    /** For `rest_invalid_param`: each bad parameter with its problem. */
    readonly params?: Record<string, ParamProblem>,
    /** For `rest_missing_callback_param`: the missing names. */
    readonly missing?: string[],
  ) {
    super(`${code}: ${messageKey}`);
  }
}

/** 400 `rest_invalid_param` naming each bad parameter. */
export function invalidParams(params: Record<string, ParamProblem>): ApiError {
  return new ApiError(
    400,
    'rest_invalid_param',
    'invalid_params',
    { names: Object.keys(params).join(', ') },
    {},
    params,
  );
}

export function invalidParam(name: string, key: MessageKey = 'invalid_param', values: MessageValues = {}): ApiError {
  return invalidParams({ [name]: [key, values] });
}

/**
 * `ticketed=true`: no tickets are sold here, so `rest_invalid_param` whose `details` carry the plugin's sub-error
 * `event-tickets-not-active` (docs/compatibility.md §2.2).
 */
export function ticketsUnavailable(): ApiError {
  const error = invalidParam('ticketed', 'tickets_unavailable');
  const details = { ticketed: { code: 'event-tickets-not-active', data: { status: 400 } } };
  return new ApiError(error.status, error.code, error.messageKey, error.values, { details }, error.params);
}

export function missingParams(names: string[]): ApiError {
  return new ApiError(
    400,
    'rest_missing_callback_param',
    'missing_params',
    { names: names.join(', ') },
    {},
    undefined,
    names,
  );
}

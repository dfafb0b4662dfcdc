/**
 * A tool call's arguments checked against the tool's own input schema before anything is sent: a path argument that
 * is not the id its schema says (`get_event {"id":"ical"}`) would otherwise name another route, and an argument
 * that is no property of the schema (`constructor`) is never looked up among the tool's places. Failures answer as
 * REST's validator does (`rest_invalid_param` or `rest_missing_callback_param`, naming each argument).
 */
import Ajv2020, { type ErrorObject, type ValidateFunction } from 'ajv/dist/2020';
import type { ApiError } from '../core/errors';
import { fromItems } from '../http/validation-errors';
import type { ToolDefinition } from './tools';

// lenient where REST is (a number sent as text, one value for a list); formats are REST's to check
const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false, coerceTypes: 'array' });
const validators = new WeakMap<ToolDefinition, ValidateFunction>();

/** The arguments to send (null and undefined ones dropped, values coerced to their types), or the error. */
export function checkedArguments(
  tool: ToolDefinition,
  args: Record<string, unknown>,
): { args: Record<string, unknown> } | { error: ApiError } {
  let validate = validators.get(tool);
  if (!validate) validators.set(tool, (validate = ajv.compile(tool.inputSchema)));
  const given: Record<string, unknown> = {};
  for (const [name, value] of Object.entries(args)) {
    if (value !== undefined && value !== null && Object.hasOwn(tool.arguments, name)) given[name] = value;
  }
  if (validate(given)) return { args: given };
  return { error: fromItems((validate.errors ?? []).map(asValidatorItem)) };
}

/** Ajv's error in the validator's shape: `/args/<name>` as its path, its keyword as the error code. */
function asValidatorItem(error: ErrorObject): { path: string; message?: string; errorCode: string } {
  const missing = (error.params as { missingProperty?: string }).missingProperty;
  const pointer = missing && error.instancePath === '' ? `/${missing}` : error.instancePath;
  return { path: `/args${pointer}`, message: error.message, errorCode: `${error.keyword}.openapi.validation` };
}

/**
 * Every human-readable message the service sends, by key. Codes never change with language; the text does.
 * Templates use `{name}` placeholders. English is the source; other languages fall back to it until translated.
 */
import type { Language } from '../config';

const en = {
  invalid_params: 'Invalid parameter(s): {names}',
  missing_params: 'Missing parameter(s): {names}',
  invalid_param: 'Invalid parameter.',
  param_type: '{name} is not of type {type}.',
  param_minimum: '{name} must be greater than or equal to {limit}.',
  param_maximum: '{name} must be less than or equal to {limit}.',
  param_min_length: '{name} must be at least {limit} character(s) long.',
  param_max_length: '{name} must be at most {limit} character(s) long.',
  param_enum: '{name} is not one of {values}.',
  param_pattern: '{name} does not match the expected format.',
  param_format: '{name} is not a valid {format}.',
  param_one_of: '{name} does not match any of the accepted forms.',
  invalid_json: 'Invalid JSON body passed.',
  payload_too_large: 'The request body is too large.',
  unsupported_media_type: 'Unsupported content type: send application/json or application/x-www-form-urlencoded.',
  no_route: 'No route was found matching the URL and request method.',
  forbidden: 'Sorry, you are not allowed to do that.',
  invalid_username: 'Unknown username. Check again or try your email address.',
  incorrect_password: 'The password you entered for the username {login} is incorrect.',
  invalid_authorization: 'The Authorization header is not valid HTTP Basic credentials.',
  too_many_requests: 'Too many failed login attempts. Try again in {seconds} seconds.',
  internal_error: 'The server could not complete the request.',
  not_implemented: 'This operation is not implemented yet.',
  term_invalid_id: 'Term does not exist.',
  term_exists: 'A term with the name provided already exists with this parent.',
  term_slug_exists: 'The slug "{slug}" is already in use by another term.',
  term_parent_invalid: 'Parent term does not exist.',
  term_parent_cycle: 'A category cannot be its own parent or the parent of one of its ancestors.',
  term_not_hierarchical: 'Can not set parent term, taxonomy is not hierarchical.',
  term_name_empty: 'A name is required for this term.',
  event_invalid_id: 'Invalid event ID.',
  archive_page_not_found: 'The requested page was not found.',
  slug_empty: 'The slug cannot be made from the name: send a slug.',
} as const;

export type MessageKey = keyof typeof en;
type Catalogue = Record<MessageKey, string>;

const catalogues: Partial<Record<Language, Partial<Catalogue>>> = { en };

export function message(language: Language, key: MessageKey, values: Record<string, string | number> = {}): string {
  const template = catalogues[language]?.[key] ?? en[key];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

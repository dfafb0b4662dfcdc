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
  term_invalid_id: 'Term does not exist.',
  term_exists: 'A term with the name provided already exists with this parent.',
  term_slug_exists: 'The slug "{slug}" is already in use by another term.',
  term_parent_invalid: 'Parent term does not exist.',
  term_parent_cycle: 'A category cannot be its own parent or the parent of one of its ancestors.',
  term_not_hierarchical: 'Can not set parent term, taxonomy is not hierarchical.',
  term_name_empty: 'A name is required for this term.',
  event_invalid_id: 'Invalid event ID.',
  archive_page_not_found: 'The requested page was not found.',
  image_invalid: 'The image must be the id of an image or an http(s) URL of an image file on a public host.',
  image_upload_forbidden: 'Sorry, you are not allowed to add images from a URL.',
  status_invalid: 'The status is not one you may ask for.',
  event_not_found: 'Event with id {id} not found.',
  event_not_accessible: 'The requested event is not accessible.',
  event_no_longer_available: 'The requested event is no longer available.',
  event_password_protected: 'The requested event is password protected.',
  event_in_trash: 'The event with id {id} is already in the trash.',
  post_not_accessible: 'The requested record is not accessible.',
  post_in_trash: 'The record with id {id} is already in the trash.',
  slug_unknown: 'No record of this kind has that slug.',
  date_invalid: 'The date could not be read.',
  end_before_start: 'The end date must not be before the start date.',
  timezone_invalid: 'The timezone is not a known time zone or UTC offset.',
  url_invalid: 'The value must be an absolute http(s) URL or empty.',
  user_invalid: 'No user with that id.',
  cannot_edit_others: 'Sorry, you are not allowed to create or edit records as another user.',
  venue_invalid: 'The venue must be the id of an existing venue or venue data.',
  organizer_invalid: 'Each organizer must be the id of an existing organizer or organizer data.',
  term_unknown: 'No term with that id or slug.',
  tickets_unavailable: 'This service sells no tickets: ticketed events do not exist here.',
  geoloc_pair: 'geoloc_lat and geoloc_lng go together.',
  geo_pair: 'geo_lat and geo_lng go together.',
  slug_empty: 'The slug cannot be made from the name: send a slug.',
} as const;

export type MessageKey = keyof typeof en;
type Catalogue = Record<MessageKey, string>;

const catalogues: Partial<Record<Language, Partial<Catalogue>>> = { en };

export function message(language: Language, key: MessageKey, values: Record<string, string | number> = {}): string {
  const template = catalogues[language]?.[key] ?? en[key];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

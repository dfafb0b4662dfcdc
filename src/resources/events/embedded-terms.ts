/**
 * Categories and tags as events embed them, kept apart from the events (events/dependencies.ts): an event's bytes
 * are kept with empty `categories` and `tags`, and each term's under its own stamp, spliced here. The splice gives
 * the very bytes `JSON.stringify` gives the whole event.
 */
import type { Executor } from '../../db/types';
import type { RenderContext } from '../posts/mapper';
import { termsByIds } from '../terms/repository';
import { CATEGORIES, TAGS } from '../terms/taxonomies';
import { translateTerms } from '../translations';
import type { TermShown } from './dependencies';
import { embeddedTerm } from './mapper';

/** Where an event's bytes kept without terms take them: its top-level keys, which no JSON string can hold. */
const NO_TERMS = Buffer.from('"categories":[],"tags":[]');
const CATEGORIES_OPEN = Buffer.from('"categories":[');
const TAGS_OPEN = Buffer.from('],"tags":[');
const CLOSE = Buffer.from(']');
const COMMA = Buffer.from(',');

/** The terms of these ids as events embed them, in `language` (a term deleted meanwhile is left out). */
export async function renderEmbeddedTerms(db: Executor, ids: number[], language: string, ctx: RenderContext) {
  const translated = await translateTerms(db, await termsByIds(db, ids), language);
  return translated.map((term) => embeddedTerm(ctx, term));
}

/** An event's bytes kept without terms, with the terms it shows (in its order) put back. */
export function withTerms(bytes: Buffer, terms: TermShown[], embedded: Map<number, Buffer>): Buffer {
  if (!terms.length) return bytes;
  const at = bytes.indexOf(NO_TERMS);
  if (at < 0) throw new Error('An event kept without terms has no place for them');
  const list = (taxonomy: string) =>
    terms
      .filter((term) => term.taxonomy === taxonomy)
      .flatMap((term) => {
        const item = embedded.get(term.id);
        return item?.length ? [item] : []; // empty: a term deleted meanwhile
      })
      .flatMap((item, i) => (i ? [COMMA, item] : [item]));
  return Buffer.concat([
    bytes.subarray(0, at),
    CATEGORIES_OPEN,
    ...list(CATEGORIES.taxonomy),
    TAGS_OPEN,
    ...list(TAGS.taxonomy),
    CLOSE,
    bytes.subarray(at + NO_TERMS.length),
  ]);
}

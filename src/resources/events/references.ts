/**
 * The records an event write links to (docs/compatibility.md §4.4, §4.6): categories and tags by id, slug or name
 * (unknown names created), venues and organizers by id or as inline data (created with their own rules, duplicates
 * reused), all in the event's write and by its writer.
 */
import type { components } from '../../../generated/schema';
import type { Config } from '../../config';
import { asId } from '../../domain/ids';
import { ApiError, invalidParam } from '../../core/errors';
import { canRead } from '../../users/roles';
import type { Write, Writer } from '../../core/write';
import * as posts from '../posts/repository';
import { findTermForEvent } from '../terms/repository';
import { createTermNamed } from '../terms/service';
import type { TaxonomyInfo } from '../terms/taxonomies';
import { ORGANIZERS, VENUES, type LinkedKind } from '../linked/kinds';
import { createLinkedIn } from '../linked/service';

type TermInput = components['schemas']['TermRefs'];

/**
 * Terms by id, slug or name, as an array or a comma-separated string (docs/compatibility.md §4.4): unknown ids are
 * skipped, unknown names are created (inside the event's transaction, by its caller). `""` and `[]` clear.
 */
export async function termIds({ w, writer }: Inline, info: TaxonomyInfo, input: TermInput): Promise<number[]> {
  const { taxonomy } = info;
  const { trx } = w;
  const items = (Array.isArray(input) ? input : String(input).split(','))
    .map((item) => String(item).trim())
    .filter(Boolean);
  const ids: number[] = [];
  for (const item of items) {
    if (/^\d+$/.test(item)) {
      const id = asId(item); // a number no term can have is skipped like any unknown id
      if (id !== undefined && (await trx('terms').where({ taxonomy, id }).first('id'))) ids.push(id);
      continue;
    }
    const found = await findTermForEvent(trx, taxonomy, item);
    ids.push(found ?? (await createTermNamed(w, info, writer, item)));
  }
  return ids;
}

type VenueInput = components['schemas']['VenueLink'];
type OrganizerInput = components['schemas']['OrganizerLink'];

/** What creating a term, venue or organizer inline needs: the event's write and its writer. */
export interface Inline {
  w: Write;
  config: Readonly<Config>;
  writer: Writer;
}

/**
 * The venue of an event write (docs/compatibility.md §4.6): an existing venue's id (number, numeric string, `{id}`), a
 * new venue's data (created with the venue rules, duplicates reused), or null to unlink (`0`, `""`, `[]`, `null`).
 * Anything invalid is 400 naming `venue`.
 */
export async function venueId(inline: Inline, input: VenueInput): Promise<number | null> {
  const [id] = await linkedIds(inline, VENUES, [input]);
  return id ?? null;
}

/** The organizers of an event write, in order: ids and inline data mixed; `0`, `""`, `[]`, `null` unlink. */
export async function organizerIds(inline: Inline, input: OrganizerInput): Promise<number[]> {
  return linkedIds(inline, ORGANIZERS, Array.isArray(input) ? input : [input]);
}

async function linkedIds(inline: Inline, kind: LinkedKind, inputs: unknown[]): Promise<number[]> {
  const ids: number[] = [];
  for (const input of inputs) {
    const id = linkedId(input);
    if (id === null) continue;
    if (id !== undefined) ids.push(id);
    else if (isInlineRecord(input, kind)) ids.push(await createInline(inline, kind, input));
    else throw invalidParam(kind.type, `${kind.type}_invalid`);
  }
  // trashed ones cannot be linked, nor ones the writer may not read (the same 400 as an unknown id: a draft or
  // private record's existence is not revealed, and linking cannot be used to read it, D63)
  const owners = await posts.ownersOf(inline.w.trx, kind.type, ids, { live: true });
  const readable = (id: number) => {
    const owner = owners.get(id);
    return owner !== undefined && canRead(inline.writer.caller, kind.plural, owner);
  };
  if (!ids.every(readable)) throw invalidParam(kind.type, `${kind.type}_invalid`);
  return ids;
}

function isInlineRecord(input: unknown, kind: LinkedKind): input is Record<string, unknown> {
  return typeof input === 'object' && input !== null && !Array.isArray(input) && kind.type in input;
}

/** Creates the record inside the event's transaction; its validation errors are reported on the event's parameter. */
async function createInline(inline: Inline, kind: LinkedKind, data: Record<string, unknown>): Promise<number> {
  try {
    return await createLinkedIn(inline.w, inline.config, kind, inline.writer, data);
  } catch (err) {
    if (err instanceof ApiError && err.status === 400) throw invalidParam(kind.type, `${kind.type}_invalid`);
    throw err;
  }
}

/** null: "no link"; undefined: not a reference to an existing record. */
function linkedId(input: unknown): number | null | undefined {
  if (input === null || input === 0 || input === '' || (Array.isArray(input) && input.length === 0)) return null;
  if (typeof input === 'number' || (typeof input === 'string' && /^\d+$/.test(input)))
    return Number(input) === 0 ? null : asId(input);
  if (typeof input === 'object' && !Array.isArray(input) && 'id' in (input as object))
    return asId((input as { id: unknown }).id);
  return undefined;
}

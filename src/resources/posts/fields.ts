/** Write fields events, venues and organizers share, checked the same way for all three. */
import type { Executor } from '../../db/types';
import { ApiError, invalidParam } from '../../core/errors';
import { can, type Caller, type PostTypePlural } from '../../users/roles';
import { findUserById } from '../../users/repository';

/** An absolute http(s) URL, or `''` to clear (docs/compatibility.md §4.1). */
export function checkedUrl(name: string, text: string): string {
  if (text === '') return '';
  try {
    const url = new URL(text);
    if ((url.protocol === 'http:' || url.protocol === 'https:') && url.hostname) return text;
  } catch {
    /* not a URL */
  }
  throw invalidParam(name, 'url_invalid');
}

/** An existing user; someone else only for callers who may edit others' records. */
export async function checkedAuthor(
  db: Executor,
  caller: Caller,
  type: PostTypePlural,
  author: number,
): Promise<number> {
  if (!(await findUserById(db, author))) throw invalidParam('author', 'user_invalid');
  if (author !== caller.id && !can(caller, `edit_others_${type}`))
    throw new ApiError(403, 'rest_cannot_edit_others', 'cannot_edit_others');
  return author;
}

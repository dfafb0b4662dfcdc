/**
 * The ETag of a JSON or iCalendar answer (http/caching.ts, docs/decisions.md D68, D122): an HMAC, under the service's
 * secret, of the bytes the caller gets, with the caller, the language and the representation. A record's single read
 * leads with the record's version. Kept answers renewed from their parts are tagged here too (http/answer-cache.ts).
 */
import { createHash, createHmac } from 'node:crypto';
import type { Request } from 'express';
import { caller } from './auth';
import { requestLanguage } from './language';
import type { RequestLike } from './urls';

/** What a tag reads of a request (any typed request will do). */
export type AnyRequest = RequestLike & Pick<Request, 'headers'>;

/** Who gets an answer, in which language and representation: what its tag covers besides the bytes. */
export const viewerOf = (req: AnyRequest, shape: 'json' | 'calendar') =>
  `${caller(req)?.id ?? 0}|${requestLanguage(req)}|${shape}|`;

/** The ETag of an answer: the record's version when it is one record's, then the keyed digest of what it shows. */
export function answerTag(secret: Buffer, viewer: string, version: string | undefined, body: string | Buffer): string {
  const mac = createHmac('sha256', secret).update(viewer).update(digestOf(body)).digest('base64url').slice(0, 31);
  return `"${version ? `${version}.` : ''}v${mac}"`;
}

/**
 * The SHA-256 of an answer's bytes. A cached representation (src/cache/) is sent as the same buffer each time, so its
 * digest is computed once and kept as long as the buffer lives: a 304 then costs one HMAC of a short text.
 */
const digests = new WeakMap<Buffer, Buffer>();
function digestOf(body: string | Buffer): Buffer {
  if (typeof body === 'string') return createHash('sha256').update(body).digest();
  let digest = digests.get(body);
  if (!digest) {
    digest = createHash('sha256').update(body).digest();
    digests.set(body, digest);
  }
  return digest;
}

/** Which answer `Accept` selects (src/feeds/ical): the tag names it, not the header's exact text. */
export function representation(req: { headers: { accept?: string } }): 'json' | 'calendar' {
  return /text\/calendar/i.test(req.headers.accept ?? '') ? 'calendar' : 'json';
}

/**
 * Featured images (docs/decisions.md D19): an existing image id, or an http(s) URL of an image file, recorded without
 * being fetched (no server-side request, so no SSRF) and reusable by id. URLs naming loopback or private hosts are
 * refused, and setting an image from a URL needs the `upload_files` capability (authors and up), as in the plugin.
 */
import { isIP } from 'node:net';
import type { Executor } from '../../db/types';
import { toNumber, utcNow } from '../../db/dialect';
import { invalidParam } from '../../core/errors';
import { can, type Caller } from '../../users/roles';
import { asId } from '../../domain/ids';
import { statement } from '../../db/statements';

export interface ImageRow {
  id: number;
  url: string;
  extension: string;
}

const EXTENSIONS = new Set([
  'jpg',
  'jpeg',
  'jpe',
  'png',
  'gif',
  'webp',
  'avif',
  'bmp',
  'ico',
  'svg',
  'tif',
  'tiff',
  'heic',
]);

/** The image id to store for an `image` input, creating the image record for a new URL. */
export async function resolveImage(
  db: Executor,
  input: number | string,
  caller: Caller,
  param = 'image',
): Promise<number> {
  if (typeof input === 'number' || /^\d+$/.test(input)) {
    const id = asId(input);
    if (id === undefined || !(await db('images').where({ id }).first('id'))) throw invalidParam(param, 'image_invalid');
    return id;
  }
  const extension = imageExtension(input);
  if (!extension) throw invalidParam(param, 'image_invalid');
  if (!can(caller, 'upload_files')) throw invalidParam(param, 'image_upload_forbidden');
  const existing = await db('images').where({ url: input }).first('id');
  if (existing) return toNumber(existing.id);
  const [row] = await db('images').insert({ url: input, extension, created_utc: utcNow() }).returning('id');
  return toNumber(row.id);
}

/** The file extension of an acceptable image URL, or undefined. */
export function imageExtension(text: string): string | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (
    (url.protocol !== 'http:' && url.protocol !== 'https:') ||
    url.username ||
    url.password ||
    isPrivateHost(url.hostname)
  )
    return undefined;
  const extension = /\.([a-z0-9]+)$/i.exec(url.pathname)?.[1]?.toLowerCase();
  return extension && EXTENSIONS.has(extension) ? extension : undefined;
}

function isPrivateHost(hostname: string): boolean {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  if (host === 'localhost' || host.endsWith('.localhost') || host === '' || (!host.includes('.') && !isIP(host)))
    return true;
  if (isIP(host) === 4) {
    const [a, b] = host.split('.').map(Number);
    return (
      a === 0 ||
      a === 10 ||
      a === 127 ||
      (a === 169 && b === 254) ||
      (a === 172 && b >= 16 && b <= 31) ||
      (a === 192 && b === 168) ||
      (a === 100 && b >= 64 && b <= 127) ||
      a >= 224
    );
  }
  if (isIP(host) === 6) {
    return (
      host === '::' || host === '::1' || /^f[cd]/.test(host) || /^fe[89ab]/.test(host) || host.startsWith('::ffff:')
    );
  }
  return false;
}

const IMAGES = statement((db, ids: number[]) => db('images').whereIn('id', ids).select('id', 'url', 'extension'));

export async function imagesByIds(db: Executor, ids: number[]): Promise<Map<number, ImageRow>> {
  if (!ids.length) return new Map();
  const rows = await IMAGES.all<ImageRow>(db, [...new Set(ids)]);
  return new Map(rows.map((r) => [toNumber(r.id), { ...r, id: toNumber(r.id) }]));
}

/** The wire image (docs/compatibility.md §1.3): what we know of it, empty values dropped. */
export function toWireImage(image: ImageRow): { url: string; id: number; extension: string } {
  return { url: image.url, id: image.id, extension: image.extension };
}

/**
 * Answers from JSON already serialised (the representation cache, src/cache/, holds records as bytes): a record is
 * sent as it is, and a list's records are spliced into their envelope, so a cached answer costs no serialising.
 * The bytes are those `res.json` would send (JSON.stringify of a whole is its parts' texts joined), with its header.
 */
import type { Response } from 'express';

const COMMA = Buffer.from(',');

export function sendJsonBytes(res: Response, body: Buffer): void {
  res.setHeader('Content-Type', 'application/json; charset=utf-8');
  (res as Response<unknown>).send(body);
}

/**
 * `envelope` serialised with `items` (serialised already) as the array at `key`: `"key":[]` can only be that key
 * (inside a JSON string its quotes would be escaped), and the first is the envelope's own.
 */
export function spliceArray(envelope: Record<string, unknown>, key: string, items: Buffer[]): Buffer {
  const text = JSON.stringify({ ...envelope, [key]: [] });
  const marker = `${JSON.stringify(key)}:[`;
  const at = text.indexOf(`${marker}]`) + marker.length;
  const parts: Buffer[] = [Buffer.from(text.slice(0, at))];
  items.forEach((item, i) => {
    if (i) parts.push(COMMA);
    parts.push(item);
  });
  parts.push(Buffer.from(text.slice(at)));
  return Buffer.concat(parts);
}

/**
 * Reads a write's `If-Match` / `If-Unmodified-Since` headers into the precondition the service checks against the
 * record's row in its transaction (core/preconditions.ts, which explains the version tags). A request without them
 * gives none: the common case runs no query and takes no lock.
 */
import type { Request } from 'express';
import type { Precondition } from '../core/preconditions';

/** The request's precondition, or undefined when it sent none (the common case: no query, no lock). */
export function precondition(req: Pick<Request, 'headers'>): Precondition | undefined {
  const match = req.headers['if-match'];
  const since = req.headers['if-unmodified-since'];
  if (match === undefined && since === undefined) return undefined;
  if (match !== undefined) return { ifMatch: parseIfMatch(match) };
  // RFC 9110: If-Unmodified-Since is ignored when If-Match is present, and when it is not a valid date
  const date = new Date(since as string);
  return Number.isNaN(date.getTime()) ? undefined : { ifUnmodifiedSince: date };
}

function parseIfMatch(header: string): string[] | '*' {
  if (header.trim() === '*') return '*';
  return header
    .split(',')
    .map((tag) => versionOf(tag.trim().replace(/^W\//, '').replace(/^"|"$/g, '')))
    .filter(Boolean);
}

/** The version part of an entity tag: `12-3.abc…` → `12-3`. */
function versionOf(tag: string): string {
  const dot = tag.indexOf('.');
  return dot < 0 ? tag : tag.slice(0, dot);
}

/**
 * WordPress's `Allow` header (`rest_send_allow_header`): on every answer of a route, the methods of that route this
 * caller may use. WordPress asks each method's permission check; here the operation's capability decides, and on a
 * record's own route the record's object rules (its author and status) decide what edits and deletes it allows.
 */
import type { RequestHandler, Response } from 'express';
import { can, canChange, type Caller, type OwnedRecord, type PostTypePlural } from '../users/roles';
import { caller } from './auth';
import type { Method, Operation } from './spec';

/** WordPress's order: READABLE, then CREATABLE/EDITABLE (POST, PUT, PATCH), then DELETABLE. */
const ORDER: Method[] = ['get', 'post', 'put', 'patch', 'delete'];

/**
 * Sets `Allow` for the route of `path` (its operations, in any order), unless a route listed earlier in the spec (a
 * literal path such as `/events/ical` before `/events/{id}`) already set it for this request.
 */
export function allowHeader(path: string, operations: Operation[]): RequestHandler {
  const methods = operations
    .filter((op) => op.path === path)
    .sort((a, b) => ORDER.indexOf(a.method) - ORDER.indexOf(b.method));
  return (req, res, next) => {
    if (!res.hasHeader('Allow')) {
      const who = caller(req);
      const allowed = methods.filter((op) => !op.capability || can(who, op.capability));
      setAllow(
        res,
        allowed.map((op) => op.method),
      );
    }
    next();
  };
}

/**
 * Narrows `Allow` on a post-like record's route to what its object rules let this caller do: the edit methods only
 * if they may edit it, DELETE only if they may delete it (WordPress's `edit_post` and `delete_post`).
 */
export function allowRecord(res: Response, who: Caller | undefined, type: PostTypePlural, record: OwnedRecord): void {
  const listed = String(res.getHeader('Allow') ?? '')
    .split(', ')
    .filter(Boolean)
    .map((method) => method.toLowerCase() as Method);
  const permitted = (method: Method) =>
    method === 'get' || canChange(who, method === 'delete' ? 'delete' : 'edit', type, record);
  setAllow(res, listed.filter(permitted));
}

function setAllow(res: Response, methods: Method[]): void {
  if (methods.length) res.setHeader('Allow', methods.map((method) => method.toUpperCase()).join(', '));
  else res.removeHeader('Allow');
}

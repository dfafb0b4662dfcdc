/**
 * The composition table: operationId → handler for every operation of the spec (a missing one fails
 * type-checking), each kind of created record → how its create renders it (`Idempotency-Key` replays,
 * http/idempotency.ts), and content negotiation: the JSON reads that have a calendar form answer `text/calendar`
 * from the feed's handler when the request prefers it.
 */
import type { Request, Response } from 'express';
import type { Handler, HandlerTable, OperationId, TypedRequest, TypedResponse } from './http/handler';
import type { CreatedRenderers } from './http/creates';
import { discoveryHandlers } from './http/discovery';
import { termHandlers, termRenderers } from './resources/terms/handlers';
import { eventHandlers, eventRenderers } from './resources/events/handlers';
import { linkedHandlers, linkedRenderers } from './resources/linked/handlers';
import { appPasswordHandlers } from './resources/app-passwords/handlers';
import { changeHandlers } from './integrations/handlers';
import { streamHandlers } from './integrations/stream';
import { webhookHandlers } from './integrations/webhooks/handlers';
import { auditHandlers } from './audit/handlers';
import { icalHandlers, sendEventCalendar, sendEventListCalendar } from './feeds/ical/handlers';

/** Whether the request prefers text/calendar to JSON (JSON stays the default, `*\/*` included). */
export function wantsCalendar(req: Pick<Request, 'accepts'>): boolean {
  return req.accepts(['application/json', 'text/calendar']) === 'text/calendar';
}

/** The JSON handler, or the calendar one when the request asks for `text/calendar`. */
function negotiated<O extends OperationId>(
  json: Handler<O>,
  calendar: (req: NoInfer<TypedRequest<O>>, res: TypedResponse<'listEventsIcal'>) => Promise<void>,
): Handler<O> {
  // these reads declare both answers, JSON and text/calendar; `TypedResponse<O>` is the JSON one, so the response
  // the calendar handler writes text to is widened to any body here
  return (req, res) => (wantsCalendar(req) ? calendar(req, res as Response) : json(req, res));
}

export const handlers: HandlerTable = {
  ...discoveryHandlers,
  ...eventHandlers,
  listEvents: negotiated(eventHandlers.listEvents, sendEventListCalendar),
  getEvent: negotiated(eventHandlers.getEvent, sendEventCalendar),
  getEventBySlug: negotiated(eventHandlers.getEventBySlug, sendEventCalendar),
  ...linkedHandlers,
  ...termHandlers,
  ...changeHandlers,
  ...streamHandlers,
  ...webhookHandlers,
  ...appPasswordHandlers,
  ...auditHandlers,
  ...icalHandlers,
};

export const createdRenderers: CreatedRenderers = { ...eventRenderers, ...linkedRenderers, ...termRenderers };

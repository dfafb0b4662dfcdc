/**
 * operationId → handler, for every operation of the spec (a missing one fails type-checking); and each kind of
 * created record → how its create renders it (for `Idempotency-Key` replays, http/idempotency.ts).
 */
import type { HandlerTable } from './handler';
import type { CreatedRenderers } from './creates';
import { discoveryHandlers } from './discovery';
import { termHandlers, termRenderers } from '../resources/terms/handlers';
import { eventHandlers, eventRenderers } from '../resources/events/handlers';
import { linkedHandlers, linkedRenderers } from '../resources/linked/handlers';
import { changeHandlers } from '../integrations/handlers';
import { webhookHandlers } from '../integrations/webhooks/handlers';
import { appPasswordHandlers } from '../users/handlers';
import { auditHandlers } from '../audit/handlers';
import { icalHandlers } from '../feeds/ical/handlers';

export const handlers: HandlerTable = {
  ...discoveryHandlers,
  ...eventHandlers,
  ...linkedHandlers,
  ...termHandlers,
  ...changeHandlers,
  ...webhookHandlers,
  ...appPasswordHandlers,
  ...auditHandlers,
  ...icalHandlers,
};

export const createdRenderers: CreatedRenderers = { ...eventRenderers, ...linkedRenderers, ...termRenderers };

/** operationId → handler, for every operation of the spec (a missing one fails type-checking). */
import type { HandlerTable } from './handler';
import { discoveryHandlers } from './discovery';
import { termHandlers } from '../resources/terms/handlers';
import { eventHandlers } from '../resources/events/handlers';
import { linkedHandlers } from '../resources/linked/handlers';
import { changeHandlers } from '../integrations/handlers';
import { webhookHandlers } from '../integrations/webhooks/handlers';

export const handlers: HandlerTable = { ...discoveryHandlers, ...eventHandlers, ...linkedHandlers, ...termHandlers,
  ...changeHandlers, ...webhookHandlers };

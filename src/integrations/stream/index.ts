/**
 * The change stream (`GET /changes/stream`, Server-Sent Events): its handler, its metrics and its shutdown. The
 * rest of the room (hub.ts: shared wake-ups, heartbeat and limits; stream.ts: one stream) is private to it.
 */
import type { Db } from '../../db/types';
import type { Metrics } from '../../metrics/registry';
import { existingHub } from './hub';
import { registerStreamMetrics } from './metrics';

export { streamHandlers } from './handlers';

/** Registers the stream's metrics for the streams of `db`. */
export function registerChangeStreamMetrics(metrics: Metrics, db: Db): void {
  registerStreamMetrics(metrics, () => existingHub(db)?.open ?? 0);
}

/** Ends every change stream on `db` (before the HTTP server closes: open streams would hold it open). */
export async function closeChangeStreams(db: Db): Promise<void> {
  await existingHub(db)?.closeAll();
}

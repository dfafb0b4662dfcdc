/**
 * `GET /changes/stream`: the change feed as Server-Sent Events. Checks the limits and the start position before any
 * byte is sent (so a refusal is an ordinary JSON error), then hands the response to a `ChangeStream`.
 */
import type { TypedRequest, TypedResponse } from '../../http/handler';
import { context } from '../../http/context';
import { readerOf } from '../../http/reader';
import { ApiError } from '../../core/errors';
import { assertRetained, decodeCursor, latestPosition, pruneChanges } from '../changes';
import { hubOf } from './hub';
import { streamMetrics } from './metrics';
import { ChangeStream } from './stream';

/** What a refused client is told to wait: streams end when their clients go, so a slot frees soon. */
const RETRY_AFTER_SECONDS = 5;

export const streamHandlers = {
  async streamChanges(req: TypedRequest<'streamChanges'>, res: TypedResponse<'streamChanges'>) {
    const { db, config, metrics } = context(req);
    const reader = readerOf(req);
    const hub = hubOf(db, config);
    const callerKey = reader.caller ? `user:${reader.caller.id}` : `address:${req.ip}`;
    // an EventSource that reconnects sends the id of the last event it received; it wins over `after`
    const lastEventId = req.get('Last-Event-ID') || undefined;
    const cursor = lastEventId ?? req.query.after;
    await pruneChanges(db, config);
    let after: number;
    if (cursor === undefined) after = await latestPosition(db);
    else {
      after = decodeCursor(cursor, lastEventId === undefined ? 'after' : 'Last-Event-ID');
      await assertRetained(db, after);
    }
    // checked with no await before the stream joins the hub, so requests arriving together cannot pass the limits
    if (hub.refusal(callerKey)) {
      const seconds = RETRY_AFTER_SECONDS;
      throw new ApiError(429, 'rest_too_many_requests', 'too_many_streams', { seconds }, { retry_after: seconds });
    }
    if (req.method === 'HEAD' || res.locals.head) {
      res.status(200).type('text/event-stream').end(); // the head a GET would get; no stream to hold open
      return;
    }
    new ChangeStream(req, res, {
      reader,
      db,
      hub,
      metrics: streamMetrics(metrics),
      callerKey,
      after,
      maxBufferBytes: config.streamMaxBufferBytes,
      drainMs: config.streamHeartbeatMs,
    });
  },
};

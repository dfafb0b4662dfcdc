/**
 * The change stream in the Prometheus metrics (src/ops/metrics.ts): the streams this node holds open, and the
 * events it sent and the slow clients it dropped since it started.
 */
import type { Metrics } from '../../metrics/registry';

export interface StreamMetrics {
  opened(): void;
  closed(): void;
  sent(events: number): void;
  dropped(): void;
}

export function streamMetrics(metrics: Metrics): StreamMetrics {
  const open = metrics.counter('change_streams_opened_total', 'Change streams opened on this node');
  const shut = metrics.counter('change_streams_closed_total', 'Change streams closed on this node');
  const events = metrics.counter('change_stream_events_total', "Change events sent on this node's streams");
  const drops = metrics.counter('change_stream_dropped_total', 'Change streams dropped for reading too slowly');
  return {
    opened: () => open.inc(),
    closed: () => shut.inc(),
    sent: (count) => events.inc(count),
    dropped: () => drops.inc(),
  };
}

/** The open-streams gauge, read from the hub when scraped. */
export function registerStreamMetrics(metrics: Metrics, openStreams: () => number): void {
  metrics.gauge('change_streams_open', 'Change streams open on this node', openStreams);
}

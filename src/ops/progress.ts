/**
 * How long jobs (imports, dumps, backups) report their progress: a bar on stderr when it is a terminal (cli-progress),
 * nothing otherwise, so logs and pipes stay clean. The jobs take a `Progress`; only the CLI makes a visible one.
 */
import { Presets, SingleBar } from 'cli-progress';

export interface Progress {
  /** A new phase of `total` items (the previous one, if any, ends). */
  start(label: string, total: number): void;
  advance(items?: number): void;
  stop(): void;
}

export const silentProgress: Progress = { start() {}, advance() {}, stop() {} };

export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return silentProgress;
  let bar: SingleBar | undefined;
  return {
    start(label, total) {
      bar?.stop();
      const format = `${label.padEnd(12)} [{bar}] {percentage}% | {value}/{total} | ETA {eta_formatted}`;
      bar = new SingleBar({ format, stream, hideCursor: true, etaBuffer: 50 }, Presets.shades_classic);
      bar.start(total, 0);
    },
    advance(items = 1) {
      bar?.increment(items);
    },
    stop() {
      bar?.stop();
      bar = undefined;
    },
  };
}

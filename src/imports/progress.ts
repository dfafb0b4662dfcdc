/** A progress bar on a terminal (stderr), nothing otherwise: imports report through it and print a summary. */
import { SingleBar, Presets } from 'cli-progress';

export interface Progress {
  start(label: string, total: number): void;
  tick(): void;
  stop(): void;
}

export const silentProgress: Progress = { start() {}, tick() {}, stop() {} };

export function terminalProgress(stream: NodeJS.WriteStream = process.stderr): Progress {
  if (!stream.isTTY) return silentProgress;
  let bar: SingleBar | undefined;
  return {
    start(label, total) {
      bar?.stop();
      bar = new SingleBar({ format: `${label.padEnd(12)} [{bar}] {value}/{total}`, stream, hideCursor: true }, Presets.shades_classic);
      bar.start(total, 0);
    },
    tick() { bar?.increment(); },
    stop() { bar?.stop(); bar = undefined; },
  };
}

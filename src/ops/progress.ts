/** A progress bar on stderr when it is a terminal (cli-progress); nothing otherwise, so logs and pipes stay clean. */
import { Presets, SingleBar } from 'cli-progress';
import type { Progress } from './dump';

export function terminalProgress(label: string, stream: NodeJS.WriteStream = process.stderr): Progress | undefined {
  if (!stream.isTTY) return undefined;
  const bar = new SingleBar({
    format: `${label} [{bar}] {percentage}% | {value}/{total} rows | ETA {eta_formatted}`,
    stream,
    hideCursor: true,
    etaBuffer: 50,
  }, Presets.shades_classic);
  return { start: (total) => bar.start(total, 0), advance: (rows) => bar.increment(rows), stop: () => bar.stop() };
}

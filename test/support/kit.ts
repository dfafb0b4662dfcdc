/**
 * The small helpers many test files share, one version each: credentials (`basic`), stored UTC text of a luxon
 * instant (`utcText`), a bounded wait (`until`), children run without blocking the test (`runChild`, `cliAsync`)
 * with their JSON lines (`jsonLines`), and a local webhook receiver (`receiver`).
 */
import { spawn } from 'node:child_process';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import type { DateTime } from 'luxon';

/** The repository's root, where the server and the CLI run. */
export const ROOT = path.resolve(__dirname, '../..');
/** The tsx launcher, which runs the TypeScript sources. */
export const TSX = path.join(ROOT, 'node_modules', '.bin', 'tsx');

/**
 * An `Authorization` value of HTTP Basic: the parts joined by `:` (`basic(login, password)`, or one part sent as
 * it is, for malformed credentials: `basic('no-colon')`).
 */
export function basic(...parts: string[]): string {
  return `Basic ${Buffer.from(parts.join(':')).toString('base64')}`;
}

/** An instant as the `YYYY-MM-DD HH:MM:SS` UTC text the service stores and filters take. */
export function utcText(instant: DateTime): string {
  return instant.toUTC().toFormat('yyyy-MM-dd HH:mm:ss');
}

/**
 * Waits, polling every `pollMs`, until `condition` holds or `timeoutMs` passed; says which. Callers that only wait
 * may ignore the answer: the assertions after it say what did not happen.
 */
export async function until(
  condition: () => boolean | Promise<boolean>,
  timeoutMs = 60_000,
  pollMs = 50,
): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await condition()) return true;
    if (Date.now() >= deadline) return false;
    await new Promise((resolve) => setTimeout(resolve, pollMs));
  }
}

/** A child's output, one JSON value per non-empty line (the CLI's way of answering). */
export function jsonLines(stdout: string): any[] {
  return stdout
    .trim()
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line));
}

export interface ChildRun {
  status: number | null;
  stdout: string;
  stderr: string;
}

/**
 * Runs a child in the repository's root to completion without blocking this process (which may serve what the
 * child fetches, or send requests meanwhile); `env` adds to this process's environment.
 */
export function runChild(command: string, args: string[], env: Record<string, string> = {}): Promise<ChildRun> {
  const child = spawn(command, args, { cwd: ROOT, env: { ...process.env, ...env } });
  let [stdout, stderr] = ['', ''];
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += chunk.toString();
  });
  child.stderr.on('data', (chunk: Buffer) => {
    stderr += chunk.toString();
  });
  // `close`, not `exit`: the child's pipes are drained, so its whole output is in
  return new Promise((resolve) => child.on('close', (status) => resolve({ status, stdout, stderr })));
}

/** The CLI (`scripts/cli.ts`) on the database at `url`, as a child that does not block this process. */
export function cliAsync(url: string, ...args: string[]): Promise<ChildRun> {
  return runChild(TSX, ['scripts/cli.ts', ...args], { DATABASE_URL: url });
}

/** A request a receiver got. */
export interface Reception {
  path: string;
  /** Its `webhook-id` header (Standard Webhooks: one per message, the same on each retry). */
  id: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface ReceiverOptions {
  /** Answer each request after this long (default: at once). */
  delayMs?: number;
  /** Answer 500 to the first reception of each message id, 200 to the next ones. */
  failFirst?: boolean;
  /** How long an idle kept-alive socket stays open (Node's default when not given). */
  keepAliveTimeoutMs?: number;
}

/**
 * A webhook receiver on 127.0.0.1 (a port of the kernel's choice) that keeps every request it gets. It answers with
 * the next status queued in `statuses` (302 redirects to `/elsewhere`), else as `options` say, else 200; a plain
 * text body of some length, so a sender's stored excerpt is a cut one.
 */
export async function receiver(options: ReceiverOptions = {}) {
  const received: Reception[] = [];
  const statuses: number[] = [];
  const seen = new Set<string>();
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const id = String(req.headers['webhook-id']);
      received.push({ path: req.url ?? '', id, headers: req.headers, body: Buffer.concat(chunks).toString('utf8') });
      const status = statuses.shift() ?? (options.failFirst && !seen.has(id) ? 500 : 200);
      seen.add(id);
      const answer = () => {
        if (status === 302) res.writeHead(302, { Location: '/elsewhere' }).end();
        else res.writeHead(status, { 'Content-Type': 'text/plain' }).end(`answer ${status} ${'x'.repeat(2000)}`);
      };
      if (options.delayMs) setTimeout(answer, options.delayMs);
      else answer();
    });
  });
  if (options.keepAliveTimeoutMs !== undefined) server.keepAliveTimeout = options.keepAliveTimeoutMs;
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    received,
    statuses,
    port,
    url: `http://127.0.0.1:${port}/hook`,
    close: () => new Promise((resolve) => server.close(resolve)),
  };
}

export type Receiver = Awaited<ReturnType<typeof receiver>>;

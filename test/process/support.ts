/**
 * Child-process helpers of the process tests: the server (`tsx src/server.ts`) and the user CLI, started the way an
 * operator starts them, on a DATABASE_URL of the test's own (see `freshDatabaseUrl` in ../support/engines.ts).
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import net from 'node:net';
import { jsonLines, ROOT, TSX } from '../support/kit';

export { ROOT, TSX };

/** Runs the CLI to completion; stdout is one JSON object per line. */
export function cli(url: string, ...args: string[]) {
  const run = spawnSync(TSX, ['scripts/cli.ts', ...args], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url },
    encoding: 'utf8',
  });
  return { status: run.status, lines: jsonLines(run.stdout), stderr: run.stderr };
}

/** What a server child printed (bounded: the last lines only), for the message of a failing test. */
const outputs = new WeakMap<ChildProcess, string[]>();
/** Every server child still running, so that `killAll` can end them whatever happened to the test. */
const running = new Set<ChildProcess>();

export function outputOf(child: ChildProcess): string {
  return (outputs.get(child) ?? []).join('');
}

function collect(child: ChildProcess): void {
  const lines: string[] = [];
  outputs.set(child, lines);
  // always drain the pipes: a child writing to a full pipe would block
  const keep = (chunk: Buffer) => {
    lines.push(chunk.toString('utf8'));
    if (lines.length > 200) lines.splice(0, lines.length - 200);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
}

export interface StartOptions {
  /** How long to wait for `/readyz` (a loaded machine compiles slowly). */
  readyTimeoutMs?: number;
}

/**
 * Starts the server on 127.0.0.1:`port` and resolves once `/readyz` answers 200; kills it if it never does.
 * The child is node itself with tsx's loader (`node --import tsx`), not the `tsx` launcher: the launcher runs the
 * server as a grandchild, which a SIGKILL of the launcher leaves running (orphaned, still serving and writing).
 */
export async function startServer(
  url: string,
  port: number,
  env: Record<string, string> = {},
  options: StartOptions = {},
): Promise<ChildProcess> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'src/server.ts'], {
    cwd: ROOT,
    env: { ...process.env, DATABASE_URL: url, PORT: String(port), HOST: '127.0.0.1', LOG_LEVEL: 'warn', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  running.add(child);
  child.on('exit', () => running.delete(child));
  collect(child);
  const deadline = Date.now() + (options.readyTimeoutMs ?? 180_000);
  while (Date.now() < deadline && child.exitCode === null && child.signalCode === null) {
    try {
      if ((await fetch(`http://127.0.0.1:${port}/readyz`, { signal: AbortSignal.timeout(30_000) })).ok) return child;
    } catch {
      /* not listening yet */
    }
    await new Promise((r) => setTimeout(r, 100));
  }
  const exitedEarly = child.exitCode !== null || child.signalCode !== null;
  child.kill('SIGKILL');
  throw new Error(
    `the server did not become ready${exitedEarly ? ` (it exited with ${child.exitCode ?? child.signalCode})` : ''}:\n${outputOf(child)}`,
  );
}

/** Resolves with the exit code once the child has exited (at once if it already has). */
export const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.on('exit', (code) => resolve(code));
  });

/** SIGKILLs every server child still running (for `afterAll` and `finally`). */
export async function killAll(): Promise<void> {
  const children = [...running];
  for (const child of children) child.kill('SIGKILL');
  await Promise.all(children.map(exited));
}

/** A TCP port that was free a moment ago (the kernel's choice, so parallel test files do not collide). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer();
    server.unref();
    server.on('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface Answer {
  status: number;
  headers: Headers;
  body: any;
}

/** One JSON request with a timeout; a status of 0 means no answer (connection refused or reset, timeout). */
export async function request(
  base: string,
  method: string,
  route: string,
  options: { auth?: string; body?: unknown; timeoutMs?: number; headers?: Record<string, string> } = {},
): Promise<Answer> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.auth) headers.Authorization = options.auth;
  if (options.body !== undefined) headers['Content-Type'] = 'application/json';
  try {
    const res = await fetch(base + route, {
      method,
      headers,
      body: options.body === undefined ? undefined : JSON.stringify(options.body),
      signal: AbortSignal.timeout(options.timeoutMs ?? 60_000),
    });
    const text = await res.text();
    let body: unknown = text;
    try {
      body = JSON.parse(text);
    } catch {
      /* not JSON */
    }
    return { status: res.status, headers: res.headers, body };
  } catch {
    return { status: 0, headers: new Headers(), body: undefined };
  }
}

/** Runs `work` over `items` with at most `limit` at once, results in order. */
export async function mapLimit<T, R>(
  items: T[],
  limit: number,
  work: (item: T, index: number) => Promise<R>,
): Promise<R[]> {
  const results: R[] = new Array(items.length);
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await work(items[index], index);
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
  return results;
}

/**
 * Consistency checks that run on both engines, each `select count(*) as n` of the offending rows: rows whose parent
 * is gone, records missing their own table's row, a status out of step, and slugs that are not unique.
 */
export const INTEGRITY_QUERIES: ReadonlyArray<[string, string]> = [
  [
    'events without a post',
    'select count(*) as n from events e left join posts p on p.id = e.post_id where p.id is null',
  ],
  [
    'event posts without an events row',
    "select count(*) as n from posts p left join events e on e.post_id = p.id where p.type = 'event' and e.post_id is null",
  ],
  [
    'venues without a post',
    'select count(*) as n from venues v left join posts p on p.id = v.post_id where p.id is null',
  ],
  [
    'venue posts without a venues row',
    "select count(*) as n from posts p left join venues v on v.post_id = p.id where p.type = 'venue' and v.post_id is null",
  ],
  [
    'organizers without a post',
    'select count(*) as n from organizers o left join posts p on p.id = o.post_id where p.id is null',
  ],
  [
    'organizer posts without an organizers row',
    "select count(*) as n from posts p left join organizers o on o.post_id = p.id where p.type = 'organizer' and o.post_id is null",
  ],
  [
    'term_relationships without a term',
    'select count(*) as n from term_relationships r left join terms t on t.id = r.term_id where t.id is null',
  ],
  [
    'term_relationships without a post',
    'select count(*) as n from term_relationships r left join posts p on p.id = r.post_id where p.id is null',
  ],
  [
    'event_organizers without a post',
    'select count(*) as n from event_organizers x left join posts e on e.id = x.event_id left join posts o on o.id = x.organizer_id where e.id is null or o.id is null',
  ],
  [
    'events whose venue is not a venue',
    "select count(*) as n from events e join posts p on p.id = e.venue_id where p.type <> 'venue'",
  ],
  [
    'events whose status differs from their post',
    'select count(*) as n from events e join posts p on p.id = e.post_id where e.status <> p.status',
  ],
  [
    'post_translations without a post',
    'select count(*) as n from post_translations x left join posts p on p.id = x.post_id where p.id is null',
  ],
  [
    'term_translations without a term',
    'select count(*) as n from term_translations x left join terms t on t.id = x.term_id where t.id is null',
  ],
  [
    'duplicate post slugs',
    'select count(*) as n from (select type, slug from posts group by type, slug having count(*) > 1) d',
  ],
  [
    'duplicate term slugs',
    'select count(*) as n from (select taxonomy, slug from terms group by taxonomy, slug having count(*) > 1) d',
  ],
];

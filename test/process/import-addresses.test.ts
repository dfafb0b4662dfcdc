/**
 * `import ics <url>` as an attacker would aim it (D62): an IPv6 notation of a loopback or otherwise
 * non-public address, given directly, reached by a redirect from a public server, or named by a host that resolves
 * to it, is refused unless --allow-private is given.
 *
 * Literals are tried against a server on 127.0.0.1 on every engine. Redirects and names need a public server: those
 * run in a private network namespace (`unshare`, `ip`, `nsenter` from util-linux and iproute2) where 8.8.8.8 and
 * 2606:4700::1111 belong to its own loopback interface and a hosts file of the test's names the attacker's records,
 * on SQLite (the refusal comes before any write, so the engine does not matter; PostgreSQL is outside the namespace).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { ENGINES, freshDatabaseUrl } from '../support/engines';
import { runChild } from '../support/kit';
import { cli, ROOT, TSX } from './support';

/** Hosts of a non-public address in every notation the attacker tried (a red team's findings). */
const FORMS = [
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:0.0.0.0',
  '::127.0.0.1',
  '::ffff:0:7f00:1',
  '64:ff9b::127.0.0.1',
  '2002:7f00:1::1',
  '2001::1',
  'fec0::1',
];
const PRIVATE = /is a private address \(allow it with --allow-private\)/;
const RESOLVES_PRIVATE = /resolves to \S+, a private address \(allow it with --allow-private\)/;
const TIMEOUT = 240_000;

/** Runs `each` over `items`, a few at a time (every child is a TypeScript compiler on a loaded machine). */
async function inBatches<T>(items: T[], each: (item: T) => Promise<void>): Promise<void> {
  for (let i = 0; i < items.length; i += 3) await Promise.all(items.slice(i, i + 3).map(each));
}

const bracketed = (address: string) => (address.includes(':') ? `[${address}]` : address);

describe.each(ENGINES)('import ics of non-public literals on %s', (engine) => {
  let database: { url: string; drop(): Promise<void> };
  let server: http.Server;
  const hits: string[] = [];
  beforeAll(async () => {
    database = await freshDatabaseUrl(engine);
    expect(cli(database.url, 'user', 'create', '--login', 'importer', '--role', 'editor').status).toBe(0);
    const calendar = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'ical', 'google.ics'));
    server = http.createServer((req, res) => {
      hits.push(req.url ?? '');
      res.writeHead(200, { 'Content-Type': 'text/calendar' }).end(calendar);
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    await new Promise((resolve) => server.close(resolve));
    await database.drop();
  });
  const importIcs = (url: string, ...flags: string[]) =>
    runChild(TSX, ['scripts/cli.ts', 'import', 'ics', url, '--author', 'importer', ...flags], {
      DATABASE_URL: database.url,
    });

  it(
    'refuses every IPv6 notation of a non-public address, and fetches one with --allow-private',
    async () => {
      const port = (server.address() as AddressInfo).port;
      await inBatches(FORMS, async (form) => {
        const refused = await importIcs(`http://${bracketed(form)}:${port}/a.ics?form=${form}`);
        expect({ form, status: refused.status, stderr: refused.stderr }).toEqual({
          form,
          status: 1,
          stderr: expect.stringMatching(PRIVATE),
        });
      });
      expect(hits).toEqual([]);
      const allowed = await importIcs(`http://[::ffff:7f00:1]:${port}/a.ics`, '--allow-private');
      expect({ status: allowed.status, stdout: allowed.stdout }).toEqual({
        status: 0,
        stdout: expect.stringContaining('"created":3'),
      });
    },
    TIMEOUT,
  );
});

describe('import ics from a public server that redirects, and of names, inside a network namespace', () => {
  const PORT = 8080; // the namespace's own: nothing else listens there
  let dir: string;
  let database: { url: string; drop(): Promise<void> };
  let world: ChildProcess;
  const requests: Array<{ path: string; search: string; at: string }> = [];
  const names = FORMS.map((_, i) => `n${i}.attacker.test`);

  beforeAll(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'public-world-'));
    const hosts = FORMS.map((form, i) => `${form} ${names[i]}`).join('\n');
    fs.writeFileSync(path.join(dir, 'hosts'), `127.0.0.1 localhost\n${hosts}\n`);
    database = await freshDatabaseUrl('sqlite');
    expect(cli(database.url, 'user', 'create', '--login', 'importer', '--role', 'editor').status).toBe(0);
    const setup = [
      'ip link set lo up',
      'ip addr add 8.8.8.8/32 dev lo',
      'ip -6 addr add 2606:4700::1111/128 dev lo nodad',
      `mount --bind ${path.join(dir, 'hosts')} /etc/hosts`,
      `exec ${TSX} test/support/public-world.ts ${PORT}`,
    ].join(' && ');
    world = spawn('unshare', ['-rnm', 'sh', '-c', setup], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
    await new Promise<void>((resolve, reject) => {
      let buffered = '';
      world.stdout?.on('data', (chunk: Buffer) => {
        buffered += chunk.toString();
        const lines = buffered.split('\n');
        buffered = lines.pop() ?? '';
        for (const line of lines) {
          if (line === 'ready') resolve();
          else requests.push(JSON.parse(line));
        }
      });
      world.on('exit', (code) => reject(new Error(`the namespace's server ended (${code})`)));
    });
  }, TIMEOUT);
  afterAll(async () => {
    world?.kill();
    await database?.drop();
    fs.rmSync(dir, { recursive: true, force: true });
  });

  /** The CLI inside the namespace (util-linux's nsenter, into the server's user, network and mount namespaces). */
  const importIcs = (url: string, ...flags: string[]) =>
    runChild(
      'nsenter',
      [
        '-t',
        String(world.pid),
        '-U',
        '-n',
        '-m',
        '--preserve-credentials',
        `--wd=${ROOT}`,
        '--',
        TSX,
        'scripts/cli.ts',
        'import',
      ].concat(['ics', url, '--author', 'importer', ...flags]),
      { DATABASE_URL: database.url },
    );
  const redirect = (to: string) => `http://8.8.8.8:${PORT}/to?url=${encodeURIComponent(to)}`;
  const fetched = (tag: string) => requests.filter((r) => r.path === '/a.ics' && r.search === `?case=${tag}`);

  it(
    'imports from a public address, and follows a redirect to another public address',
    async () => {
      const direct = await importIcs(`http://8.8.8.8:${PORT}/a.ics?case=direct`);
      expect({ status: direct.status, stderr: direct.stderr }).toEqual({ status: 0, stderr: '' });
      const hop = await importIcs(redirect(`http://[2606:4700::1111]:${PORT}/a.ics?case=hop`));
      expect({ status: hop.status, stderr: hop.stderr }).toEqual({ status: 0, stderr: '' });
      expect(fetched('hop')).toEqual([expect.objectContaining({ at: '2606:4700::1111' })]);
    },
    TIMEOUT,
  );

  it(
    'refuses a redirect to every IPv6 notation of a non-public address, unless --allow-private',
    async () => {
      await inBatches(FORMS, async (form) => {
        const tag = `r${FORMS.indexOf(form)}`;
        const refused = await importIcs(redirect(`http://${bracketed(form)}:${PORT}/a.ics?case=${tag}`));
        expect({ form, status: refused.status, stderr: refused.stderr, fetched: fetched(tag) }).toEqual({
          form,
          status: 1,
          stderr: expect.stringMatching(PRIVATE),
          fetched: [],
        });
      });
      const allowed = await importIcs(redirect(`http://[::ffff:7f00:1]:${PORT}/a.ics?case=allowed`), '--allow-private');
      expect({ status: allowed.status, fetched: fetched('allowed').length }).toEqual({ status: 0, fetched: 1 });
    },
    TIMEOUT,
  );

  it(
    'refuses names that resolve to them, given directly or reached by a redirect',
    async () => {
      const urls = names.flatMap((name, i) => {
        const target = `http://${name}:${PORT}/a.ics`;
        return [`${target}?case=n${i}`, redirect(`${target}?case=rn${i}`)];
      });
      await inBatches(urls, async (url) => {
        const refused = await importIcs(url);
        const tag = /case(?:=|%3D)(\w+)/.exec(url)?.[1] ?? '';
        expect({ url, status: refused.status, stderr: refused.stderr, fetched: fetched(tag) }).toEqual({
          url,
          status: 1,
          stderr: expect.stringMatching(RESOLVES_PRIVATE),
          fetched: [],
        });
      });
    },
    TIMEOUT,
  );
});

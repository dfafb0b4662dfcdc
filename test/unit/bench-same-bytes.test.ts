/**
 * The bench's same-bytes baseline (bench/same-bytes.ts, bench/same-bytes-server.js): which URLs it
 * replays, which headers it copies, the ratio, and that the server answers the captured bytes with Express's ETag.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { capture, distinctUrls, load, meanBytes, percentOf, replayHeaders } from '../../bench/same-bytes';

describe('the URLs the same-bytes baseline replays', () => {
  it('are the first distinct ones a scenario draws, in order, bounded', () => {
    const draws = ['/a', '/b', '/a', '/c', '/b', '/d'];
    let i = 0;
    expect(distinctUrls(() => draws[i++ % draws.length], 3)).toEqual(['/a', '/b', '/c']);
    expect(distinctUrls(() => '/one', 1000)).toEqual(['/one']);
    let n = 0;
    expect(distinctUrls(() => `/e/${n++}`, 1000, 10)).toHaveLength(10); // at most `tries` draws
  });
});

describe('what it copies and reports', () => {
  it('copies the service headers but those the stack computes per response', () => {
    const headers = new Headers({ 'content-type': 'application/json', etag: 'W/"x"', date: 'now', 'x-wp-total': '3' });
    expect(replayHeaders(headers)).toEqual({ 'content-type': 'application/json', 'x-wp-total': '3' });
  });

  it('gives ratios in percent, none without a baseline, and mean sizes', () => {
    expect(percentOf(50, { rps: 200 })).toBe(25);
    expect(percentOf(50, undefined)).toBeNaN();
    const body = (bytes: number) => Buffer.alloc(bytes).toString('base64');
    const entry = { method: 'GET', url: '/', status: 200, headers: {} };
    expect(
      meanBytes([
        { ...entry, body: body(10) },
        { ...entry, body: body(30) },
      ]),
    ).toBe(20);
  });
});

describe('the same-bytes server', () => {
  let service: http.Server;
  let child: ChildProcess;
  let port: number;
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'same-bytes-'));

  beforeAll(async () => {
    service = http.createServer((req, res) => {
      res.writeHead(200, { 'Content-Type': 'application/json; charset=utf-8', 'X-WP-Total': '1', ETag: '"service"' });
      res.end(JSON.stringify({ url: req.url }));
    });
    await new Promise<void>((resolve) => service.listen(0, '127.0.0.1', resolve));
    port = await new Promise<number>((resolve) => {
      const probe = http.createServer().listen(0, '127.0.0.1', () => {
        const { port: free } = probe.address() as AddressInfo;
        probe.close(() => resolve(free));
      });
    });
    child = spawn(process.execPath, [path.join(__dirname, '../../bench/same-bytes-server.js')], {
      env: { ...process.env, PORT: String(port) },
      stdio: 'ignore',
    });
    for (let i = 0; i < 100; i++) {
      if (
        await fetch(`http://127.0.0.1:${port}/__same-bytes/load`).then(
          (r) => r.ok,
          () => false,
        )
      )
        return;
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
  });

  afterAll(async () => {
    child.kill('SIGTERM');
    await new Promise((resolve) => service.close(resolve));
    fs.rmSync(dir, { recursive: true, force: true });
  });

  it('answers the captured bytes and headers per URL, with its own ETag and 304, and 404 elsewhere', async () => {
    const { port: servicePort } = service.address() as AddressInfo;
    const captured = await capture(servicePort, ['/e/1?lang=fr', '/e/2'], {});
    expect(await load(port, path.join(dir, 'answers.json'), captured)).toBe(2);
    const answer = await fetch(`http://127.0.0.1:${port}/e/1?lang=fr`);
    expect(await answer.text()).toBe('{"url":"/e/1?lang=fr"}');
    expect(answer.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(answer.headers.get('x-wp-total')).toBe('1');
    const etag = answer.headers.get('etag') as string;
    expect(etag).toMatch(/^W\/"/); // Express's weak default, not the service's
    // not `fetch`: it adds `Cache-Control: no-cache` to conditional requests, which Express answers 200 (autocannon
    // sends the headers it is given)
    const status = await new Promise((resolve, reject) =>
      http
        .get(`http://127.0.0.1:${port}/e/1?lang=fr`, { headers: { 'if-none-match': etag } }, (res) => {
          res.resume();
          resolve(res.statusCode);
        })
        .on('error', reject),
    );
    expect(status).toBe(304);
    expect((await fetch(`http://127.0.0.1:${port}/e/1`)).status).toBe(404);
  });
});

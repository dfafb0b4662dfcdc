/**
 * The far end of test/process/import-addresses.test.ts, run inside a private network namespace where 8.8.8.8 and
 * 2606:4700::1111 are addresses of its own loopback interface: a calendar at `/a.ics` and a redirect at
 * `/to?url=…`, served on every address at the port given; one JSON line per request on stdout, `ready` first.
 */
import fs from 'node:fs';
import http from 'node:http';
import path from 'node:path';

const CALENDAR = fs.readFileSync(path.join(__dirname, '..', 'fixtures', 'ical', 'google.ics'));

const server = http.createServer((req, res) => {
  const url = new URL(req.url ?? '/', 'http://public.test');
  process.stdout.write(`${JSON.stringify({ path: url.pathname, search: url.search, at: req.socket.localAddress })}\n`);
  if (url.pathname === '/to') res.writeHead(302, { Location: url.searchParams.get('url') ?? '/' }).end();
  else res.writeHead(200, { 'Content-Type': 'text/calendar' }).end(CALENDAR);
});
server.listen(Number(process.argv[2]), '::', () => process.stdout.write('ready\n'));

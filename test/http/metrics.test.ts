/** `GET /metrics` through HTTP on every engine: what it counts, Debian's `promtool check metrics`, the token. */
import { spawnSync } from 'node:child_process';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import type { AppContext } from '../../src/http/context';
import { clockStartingAt, manualClock, setClock } from '../../src/domain/clock';
import { startDispatcher } from '../../src/integrations/webhooks/dispatcher';
import { createLogger } from '../../src/logger';
import { extendHorizons } from '../../src/resources/series/horizon';

/** The `METRICS_TOKEN` a scrape sends (without one, `/metrics` answers no one). */
const TOKEN = 'a test scrape token';

/** The value of one sample line, e.g. `http_requests_total{operation="listEvents",method="GET",status_class="2xx"}`. */
function sample(text: string, name: string, labels: Record<string, string> = {}): number | undefined {
  const wanted = Object.entries(labels).map(([k, v]) => `${k}="${v}"`);
  for (const line of text.split('\n')) {
    const match = /^([a-zA-Z_:][\w:]*)(?:\{(.*)\})? (\S+)$/.exec(line);
    if (!match || match[1] !== name) continue;
    const have = (match[2] ?? '').split(',');
    if (wanted.every((w) => have.includes(w))) return Number(match[3]);
  }
  return undefined;
}

function promtool(text: string) {
  return spawnSync('promtool', ['check', 'metrics'], { input: text, encoding: 'utf8' });
}

describe.each(ENGINES)('metrics on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine, {
      LOGIN_MAX_FAILURES: '2',
      LOGIN_FAILURE_WINDOW_SECONDS: '600',
      METRICS_TOKEN: TOKEN,
    });
  });
  afterAll(() => service.close());
  const scrape = async () => {
    const res = await http(service).get('/metrics').set('Authorization', `Bearer ${TOKEN}`);
    expect(res.status).toBe(200);
    expect(res.headers['content-type']).toMatch(/^text\/plain; version=0\.0\.4/);
    return res.text;
  };

  it('counts and times requests by operationId, method and status class, never by raw URL', async () => {
    await http(service).get(`${NS}/events?per_page=3`).expect(200);
    await http(service).get(`${NS}/events/987654`).expect(404);
    await http(service).get(`${NS}/events?per_page=nonsense`).expect(400);
    await http(service).post(`${NS}/events`).send({ title: 'x' }).expect(401);
    await http(service).get(`${NS}/no-such-route/42`).expect(404);
    await http(service).get('/livez').expect(200);
    const text = await scrape();
    expect(sample(text, 'http_requests_total', { operation: 'listEvents', method: 'GET', status_class: '2xx' })).toBe(
      1,
    );
    expect(sample(text, 'http_requests_total', { operation: 'listEvents', method: 'GET', status_class: '4xx' })).toBe(
      1,
    );
    expect(sample(text, 'http_requests_total', { operation: 'getEvent', method: 'GET', status_class: '4xx' })).toBe(1);
    expect(sample(text, 'http_requests_total', { operation: 'createEvent', method: 'POST', status_class: '4xx' })).toBe(
      1,
    );
    expect(sample(text, 'http_requests_total', { operation: 'no_route', method: 'GET', status_class: '4xx' })).toBe(1);
    expect(sample(text, 'http_requests_total', { operation: 'livez', method: 'GET', status_class: '2xx' })).toBe(1);
    expect(sample(text, 'http_request_duration_seconds_count', { operation: 'listEvents', status_class: '2xx' })).toBe(
      1,
    );
    expect(
      sample(text, 'http_request_duration_seconds_bucket', {
        operation: 'listEvents',
        status_class: '2xx',
        le: '+Inf',
      }),
    ).toBe(1);
    expect(text).not.toMatch(/987654|no-such-route|per_page/);
  });

  it('times database queries and shows the connection pool', async () => {
    const text = await scrape();
    expect(sample(text, 'db_query_duration_seconds_count', { outcome: 'ok' })).toBeGreaterThan(0);
    expect(sample(text, 'db_pool_connections', { state: 'used' })).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'db_pool_connections', { state: 'free' })).toBeGreaterThanOrEqual(0);
    expect(sample(text, 'db_pool_max_connections')).toBe(engine === 'sqlite' ? 1 : 10);
  });

  it('counts failed and throttled logins', async () => {
    const { login } = service.users.author;
    await http(service).get(`${NS}/categories`).auth('nobody-at-all', 'x').expect(401);
    await http(service).get(`${NS}/categories`).auth(login, 'wrong').expect(401);
    await http(service).get(`${NS}/categories`).auth(login, 'wrong').expect(401);
    await http(service).get(`${NS}/categories`).auth(login, 'wrong').expect(429);
    const text = await scrape();
    expect(sample(text, 'auth_login_failures_total', { reason: 'invalid_username' })).toBe(1);
    expect(sample(text, 'auth_login_failures_total', { reason: 'incorrect_password' })).toBe(2);
    expect(sample(text, 'auth_login_throttled_total')).toBe(1);
  });

  it('has the process and Node metrics: event-loop lag, heap, GC', async () => {
    const text = await scrape();
    for (const name of [
      'nodejs_eventloop_lag_seconds',
      'nodejs_heap_size_used_bytes',
      'process_resident_memory_bytes',
    ]) {
      expect(sample(text, name)).toBeGreaterThanOrEqual(0);
    }
    expect(text).toContain('# TYPE nodejs_gc_duration_seconds histogram');
  });

  it('lets a feature register a gauge read at scrape time (here: the number of events)', async () => {
    const { metrics, db } = service.app.locals.context as AppContext;
    metrics.gauge('calendar_test_events', 'Events stored', async () => {
      const [{ n }] = await db('events').count({ n: '*' });
      return Number(n);
    });
    await http(service)
      .post(`${NS}/events`)
      .auth(...service.as('administrator'))
      .send({ title: 'Counted', start_date: '2027-07-01 10:00:00', end_date: '2027-07-01 11:00:00' })
      .expect(201);
    expect(sample(await scrape(), 'calendar_test_events')).toBe(1);
  });

  it('shows the recurrence horizon lag: growing while the daily extension does not run, back to 0 after it', async () => {
    const clock = manualClock('2027-06-15T12:00:00Z');
    setClock(clock);
    const lag = async () => {
      const text = await scrape();
      return {
        lag: sample(text, 'recurrence_horizon_lag_seconds'),
        age: sample(text, 'recurrence_horizon_extension_age_seconds'),
      };
    };
    expect((await lag()).lag).toBe(0); // no open-ended series yet
    await http(service)
      .post(`${NS}/events`)
      .auth(...service.as('editor'))
      .send({
        title: 'Every Monday',
        start_date: '2027-06-21 09:00:00',
        end_date: '2027-06-21 10:00:00',
        recurrence: { rrule: 'FREQ=WEEKLY' },
      })
      .expect(201);
    expect((await lag()).lag).toBe(0);
    clock.advance(3 * 86_400_000);
    expect((await lag()).lag).toBe(3 * 86_400);
    await extendHorizons(service.database.db, service.config);
    expect(await lag()).toEqual({ lag: 0, age: 0 });
    clock.advance(3_600_000);
    expect(await lag()).toEqual({ lag: 3_600, age: 3_600 });
  });

  it("passes Debian's promtool check metrics", async () => {
    const check = promtool(await scrape());
    expect(check.error).toBeUndefined();
    expect({ status: check.status, output: check.stdout + check.stderr }).toEqual({ status: 0, output: '' });
  });

  it('is not part of the API or its spec', async () => {
    const spec = (await http(service).get(`${NS}/doc`).expect(200)).body;
    expect(JSON.stringify(Object.keys(spec.paths))).not.toContain('metrics');
    expect((await http(service).get(`${NS}/metrics`)).status).toBe(404);
  });
});

describe.each(ENGINES)('webhook outbox metrics on %s', (engine) => {
  let service: TestService;
  const statuses: number[] = [];
  const receiver = createServer((req, res) => {
    req.resume();
    req.on('end', () => res.writeHead(statuses.shift() ?? 200).end('ok'));
  });
  beforeAll(async () => {
    service = await startService(engine, {
      WEBHOOK_ALLOW_PRIVATE: '1',
      WEBHOOK_RETRY_SCHEDULE: '1',
      METRICS_TOKEN: TOKEN,
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  });
  afterAll(async () => {
    setClock(clockStartingAt('2027-06-15T12:00:00Z'));
    await new Promise((resolve) => receiver.close(resolve));
    await service.close();
  });

  it('shows the outbox depth, the age of its oldest message, and delivery attempts by outcome', async () => {
    const clock = manualClock('2027-06-15T12:00:00Z');
    setClock(clock);
    const dispatcher = startDispatcher(service.app.locals.context as AppContext, createLogger('silent'), {
      loop: false,
    });
    const admin = (url: string, body: object) =>
      http(service)
        .post(`${NS}${url}`)
        .auth(...service.as('administrator'))
        .send(body);
    const scrape = async () => {
      const text = (await http(service).get('/metrics').set('Authorization', `Bearer ${TOKEN}`).expect(200)).text;
      const outcome = (o: string) => sample(text, 'webhook_deliveries_total', { outcome: o }) ?? 0;
      return {
        depth: sample(text, 'webhook_outbox_depth'),
        age: sample(text, 'webhook_outbox_oldest_age_seconds'),
        succeeded: outcome('succeeded'),
        retrying: outcome('retrying'),
        failed: outcome('failed'),
        text,
      };
    };
    const { port } = receiver.address() as AddressInfo;
    await admin('/webhooks', { url: `http://127.0.0.1:${port}/hook`, events: ['tag.created'] }).expect(201);
    expect(await scrape()).toMatchObject({ depth: 0, age: 0, succeeded: 0, retrying: 0, failed: 0 });
    await admin('/tags', { name: 'Announced' }).expect(201);
    clock.advance(30_000);
    expect(await scrape()).toMatchObject({ depth: 1, age: 30 });
    statuses.push(500, 500);
    expect(await dispatcher.tick()).toBe(1); // fails, another try in a second
    expect(await scrape()).toMatchObject({ depth: 1, retrying: 1 });
    clock.advance(1_000);
    expect(await dispatcher.tick()).toBe(1); // fails again: the schedule is spent
    await admin('/tags', { name: 'Delivered' }).expect(201);
    expect(await dispatcher.tick()).toBe(1);
    const after = await scrape();
    expect(after).toMatchObject({ depth: 0, age: 0, succeeded: 1, retrying: 1, failed: 1 });
    const check = promtool(after.text);
    expect({ status: check.status, output: check.stdout + check.stderr }).toEqual({ status: 0, output: '' });
    await dispatcher.stop();
  });
});

describe.each(ENGINES)('metrics protected by METRICS_TOKEN on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine, { METRICS_TOKEN: 'a scrape secret' });
  });
  afterAll(() => service.close());

  it('answers only the right Bearer token', async () => {
    for (const header of [undefined, 'Bearer wrong', 'Bearer a scrape secre', 'Basic YTpi', 'Bearer']) {
      const req = http(service).get('/metrics');
      const res = await (header ? req.set('Authorization', header) : req);
      expect(res.status).toBe(401);
      expect(res.headers['www-authenticate']).toBe('Bearer realm="metrics"');
      expect(res.text).not.toContain('http_requests_total');
    }
    const res = await http(service).get('/metrics').set('Authorization', 'Bearer a scrape secret');
    expect(res.status).toBe(200);
    expect(res.text).toContain('# TYPE http_requests_total counter');
  });
});

describe.each(ENGINES)('metrics without METRICS_TOKEN on %s', (engine) => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService(engine);
  });
  afterAll(() => service.close());

  it('answers no one: closed by default', async () => {
    await http(service).get(`${NS}/events`).expect(200);
    for (const header of [undefined, 'Bearer ', 'Bearer undefined', 'Basic YTpi']) {
      const req = http(service).get('/metrics');
      const res = await (header ? req.set('Authorization', header) : req);
      expect([res.status, res.headers['www-authenticate']]).toEqual([401, 'Bearer realm="metrics"']);
      expect(res.text).not.toContain('http_requests_total');
    }
    const admin = await http(service)
      .get('/metrics')
      .auth(...service.as('administrator'));
    expect(admin.status).toBe(401);
  });
});

describe('metrics turned off', () => {
  let service: TestService;
  beforeAll(async () => {
    service = await startService('sqlite', { METRICS: 'off' });
  });
  afterAll(() => service.close());

  it('serves no /metrics and records nothing', async () => {
    expect((await http(service).get('/metrics')).status).toBe(404);
    expect((service.app.locals.context as AppContext).metrics.enabled).toBe(false);
  });
});

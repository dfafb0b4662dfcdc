/**
 * Webhooks through HTTP on every engine, against a local receiver on 127.0.0.1 (port 0): subscriptions
 * for administrators only, signatures checked with the `standardwebhooks` package (an independent implementation),
 * per-record order, retries on a shrunk schedule, giving up, manual retry, disabling after days of failure, secret
 * rotation with both signatures, and the SSRF refusals. The dispatcher is stepped by hand (`tick`), the service clock
 * moved with a manual clock.
 */
import dns from 'node:dns';
import { Webhook } from 'standardwebhooks';
import { ENGINES } from '../support/engines';
import { receiver, type Receiver, type Reception } from '../support/kit';
import { http as client, NS, startService, TEST_NOW, type TestService } from '../support/app';
import { clockStartingAt, manualClock, now, setClock } from '../../src/domain/clock';
import { startDispatcher, type Dispatcher } from '../../src/integrations/webhooks/dispatcher';
import { createLogger } from '../../src/logger';
import type { AppContext } from '../../src/http/context';

/** Verifies a received message with the standardwebhooks package, at the service's clock (its timestamp check). */
function verify(secret: string, message: Reception): unknown {
  const spy = jest.spyOn(Date, 'now').mockReturnValue(now().getTime());
  try {
    return new Webhook(secret).verify(message.body, {
      'webhook-id': String(message.headers['webhook-id']),
      'webhook-timestamp': String(message.headers['webhook-timestamp']),
      'webhook-signature': String(message.headers['webhook-signature']),
    });
  } finally {
    spy.mockRestore();
  }
}

const ENV = { WEBHOOK_ALLOW_PRIVATE: '1', WEBHOOK_RETRY_SCHEDULE: '1,60' };

/** A loaded machine (several suites at once) runs these many requests slowly. */
const TIMEOUT = 120_000;

describe.each(ENGINES)('webhooks on %s', (engine) => {
  let service: TestService;
  let dispatcher: Dispatcher;
  let hook: Receiver;
  const clock = manualClock(TEST_NOW);
  beforeAll(async () => {
    service = await startService(engine, ENV);
    dispatcher = startDispatcher(service.app.locals.context as AppContext, createLogger('silent'), { loop: false });
    hook = await receiver();
  });
  beforeEach(() => {
    clock.set(new Date(Math.ceil(now().getTime() / 1000) * 1000)); // whole seconds, as stored

    setClock(clock);
    hook.received.length = 0;
    hook.statuses.length = 0;
  });
  afterEach(async () => {
    await service.database.db('webhooks').delete();
  }); // a failed test leaves no subscriber behind
  afterAll(async () => {
    setClock(clockStartingAt(TEST_NOW));
    await hook.close();
    await service.close();
  });

  const admin = (method: 'get' | 'post' | 'patch' | 'delete', url: string, body?: object) =>
    client(service)
      [method](`${NS}${url}`)
      .auth(...service.as('administrator'))
      .send(body);
  const subscribe = async (events: string[], url = hook.url) => {
    const res = await admin('post', '/webhooks', { url, events, description: 'test receiver' });
    expect(res.status).toBe(201);
    return res.body as { id: number; secret: string };
  };
  const deliveries = async (id: number) => (await admin('get', `/webhooks/${id}/deliveries`)).body.deliveries as any[];
  const drain = async () => {
    while ((await dispatcher.tick()) > 0);
  };

  it(
    'lets administrators only manage subscriptions, and shows the secret only on create',
    async () => {
      expect((await client(service).get(`${NS}/webhooks`)).status).toBe(401);
      expect(
        (
          await client(service)
            .get(`${NS}/webhooks`)
            .auth(...service.as('editor'))
        ).status,
      ).toBe(403);
      const created = await subscribe(['tag.created']);
      expect(created.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(created.secret.slice(6), 'base64').length).toBeGreaterThanOrEqual(24);
      const read = await admin('get', `/webhooks/${created.id}`);
      expect(read.status).toBe(200);
      expect(read.body).not.toHaveProperty('secret');
      expect((await admin('get', '/webhooks')).body.webhooks.every((w: object) => !('secret' in w))).toBe(true);
      const patched = await admin('patch', `/webhooks/${created.id}`, {
        events: ['tag.created', 'tag.deleted'],
        description: 'renamed',
      });
      expect(patched.body).toMatchObject({
        events: ['tag.created', 'tag.deleted'],
        description: 'renamed',
        active: true,
      });
      expect((await admin('post', '/webhooks', { url: hook.url, events: ['tag.exploded'] })).status).toBe(400);
      expect((await admin('delete', `/webhooks/${created.id}`)).status).toBe(200);
      expect((await admin('get', `/webhooks/${created.id}`)).status).toBe(404);
    },
    TIMEOUT,
  );

  it(
    'sends signed messages a receiver verifies with standardwebhooks, one record in order, payload as anonymous reads it',
    async () => {
      const { id, secret } = await subscribe(['event.created', 'event.updated']);
      const event = await admin('post', '/events', {
        title: 'Hooked',
        status: 'draft',
        start_date: '2027-07-01 10:00',
        end_date: '2027-07-01 11:00',
      });
      await admin('patch', `/events/${event.body.id}`, { status: 'publish', title: 'Hooked, published' });
      expect(await dispatcher.tick()).toBe(1); // the update waits for the create: one record's messages in order
      expect(await dispatcher.tick()).toBe(1);
      expect(hook.received).toHaveLength(2);
      const [first, second] = hook.received.map((m) => verify(secret, m) as any);
      expect(first).toMatchObject({ type: 'event.created', data: { id: event.body.id } });
      expect(second).toMatchObject({
        type: 'event.updated',
        data: { id: event.body.id, record: { title: 'Hooked, published', status: 'publish' } },
      });
      expect(hook.received[0].headers['webhook-id']).not.toBe(hook.received[1].headers['webhook-id']);
      expect(hook.received[0].headers['content-type']).toBe('application/json');
      expect(() => verify(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, hook.received[0])).toThrow();
      const log = await deliveries(id);
      expect(log.map((d) => [d.type, d.state, d.attempts.length, d.attempts[0].status])).toEqual([
        ['event.updated', 'succeeded', 1, 200],
        ['event.created', 'succeeded', 1, 200],
      ]);
      expect(log[0].attempts[0].response_body).toHaveLength(1024);
      await admin('delete', `/webhooks/${id}`);
    },
    TIMEOUT,
  );

  it(
    'retries on the schedule with the same webhook-id, gives up, and retries by hand',
    async () => {
      const { id, secret } = await subscribe(['tag.created']);
      hook.statuses.push(500, 503, 500, 200);
      await admin('post', '/tags', { name: 'Retried tag' });
      await drain();
      expect(hook.received).toHaveLength(1);
      clock.advance(999);
      await drain();
      expect(hook.received).toHaveLength(1); // not due before 1 s
      clock.advance(1);
      await drain();
      clock.advance(60_000);
      await drain();
      expect(hook.received).toHaveLength(3);
      expect(new Set(hook.received.map((m) => m.headers['webhook-id'])).size).toBe(1);
      let [delivery] = await deliveries(id);
      expect(delivery).toMatchObject({ state: 'failed', attempt_count: 3, next_attempt_utc: null });
      expect(delivery.attempts.map((a: any) => a.status)).toEqual([500, 503, 500]);
      expect(delivery.attempts[0]).toMatchObject({ attempt: 1, error: null, duration_ms: expect.any(Number) });
      const retried = await admin('post', `/webhooks/${id}/deliveries/${delivery.id}/retry`);
      expect(retried.status).toBe(202);
      expect(retried.body.state).toBe('pending');
      await drain();
      [delivery] = await deliveries(id);
      expect(delivery.state).toBe('succeeded');
      expect(verify(secret, hook.received[3])).toMatchObject({
        type: 'tag.created',
        data: { record: { name: 'Retried tag' } },
      });
      expect(hook.received[3].body).toBe(hook.received[0].body);
      expect((await admin('post', `/webhooks/${id}/deliveries/999999/retry`)).status).toBe(404);
      await admin('delete', `/webhooks/${id}`);
    },
    TIMEOUT,
  );

  it(
    'does not follow redirects, and disables a subscription failing for 5 days',
    async () => {
      const { id } = await subscribe(['tag.created']);
      hook.statuses.push(302);
      expect((await admin('post', `/webhooks/${id}/ping`)).status).toBe(202);
      await drain();
      expect(hook.received.map((m) => m.path)).toEqual(['/hook']);
      expect((await deliveries(id))[0].attempts[0].status).toBe(302);
      expect((await admin('get', `/webhooks/${id}`)).body.failing_since_utc).toEqual(expect.any(String));
      clock.advance(5 * 86_400_000);
      hook.statuses.push(500);
      await drain(); // the ping's retry: still failing, 5 days on
      const disabled = (await admin('get', `/webhooks/${id}`)).body;
      expect(disabled).toMatchObject({ active: false, disabled_reason: expect.stringContaining('failed') });
      await admin('post', '/tags', { name: 'Unheard tag' });
      hook.received.length = 0;
      await drain();
      expect(hook.received).toHaveLength(0);
      const revived = await admin('patch', `/webhooks/${id}`, { active: true });
      expect(revived.body).toMatchObject({ active: true, failing_since_utc: null, disabled_reason: null });
      await admin('post', '/tags', { name: 'Heard tag' });
      await drain(); // changes made while it was disabled were not queued for it; new ones are
      expect(hook.received.map((m) => JSON.parse(m.body).data.record.name)).toEqual(['Heard tag']);
      await admin('delete', `/webhooks/${id}`);
    },
    TIMEOUT,
  );

  it(
    'signs with both secrets for a day after a rotation',
    async () => {
      const { id, secret: old } = await subscribe(['tag.created']);
      const rotated = await admin('post', `/webhooks/${id}/rotate-secret`);
      expect(rotated.status).toBe(200);
      const fresh = rotated.body.secret as string;
      expect(fresh).not.toBe(old);
      await admin('post', '/tags', { name: 'Rotated tag' });
      await drain();
      const [message] = hook.received;
      expect(String(message.headers['webhook-signature']).split(' ')).toHaveLength(2);
      expect(verify(fresh, message)).toMatchObject({ type: 'tag.created' });
      expect(verify(old, message)).toMatchObject({ type: 'tag.created' });
      clock.advance(24 * 3_600_000 + 1000);
      await admin('post', '/tags', { name: 'Later tag' });
      await drain();
      expect(String(hook.received[1].headers['webhook-signature']).split(' ')).toHaveLength(1);
      expect(() => verify(old, hook.received[1])).toThrow();
      expect(verify(fresh, hook.received[1])).toMatchObject({ data: { record: { name: 'Later tag' } } });
      await admin('delete', `/webhooks/${id}`);
    },
    TIMEOUT,
  );
});

/** A red team's findings: IPv6 notations of loopback and the special-purpose ranges (D62). */
const NON_PUBLIC = [
  '::ffff:127.0.0.1',
  '::ffff:7f00:1',
  '::ffff:0.0.0.0',
  '::127.0.0.1',
  '::ffff:0:7f00:1',
  '64:ff9b::127.0.0.1',
  '64:ff9b:1::808:808',
  '2002:7f00:1::1',
  '2001::1',
  '2001:db8::1',
  '3fff::1',
  '5f00::1',
  '100::1',
  'fec0::1',
];

/** The attacker's DNS: `<n>.attacker.test` resolves to NON_PUBLIC[n]; other names as usual. */
function attackerDns(): jest.SpyInstance[] {
  const answer = (hostname: string) => {
    const match = /^(\d+)\.attacker\.test$/.exec(hostname);
    return match ? NON_PUBLIC[Number(match[1])] : undefined;
  };
  const { lookup } = dns;
  const fake = ((hostname: string, options: dns.LookupOptions, callback: (...args: unknown[]) => void) => {
    const address = answer(hostname);
    if (!address) return lookup(hostname, options, callback as never);
    const found = { address, family: 6 };
    process.nextTick(() => (options.all ? callback(null, [found]) : callback(null, address, 6)));
  }) as unknown as typeof dns.lookup;
  const { lookup: lookupPromise } = dns.promises;
  const fakePromise = (async (hostname: string, options: dns.LookupOptions) => {
    const address = answer(hostname);
    if (!address) return lookupPromise(hostname, options);
    return options?.all ? [{ address, family: 6 }] : { address, family: 6 };
  }) as unknown as typeof dns.promises.lookup;
  // the promise API too: the code before D62 resolved with it
  return [
    jest.spyOn(dns, 'lookup').mockImplementation(fake),
    jest.spyOn(dns.promises, 'lookup').mockImplementation(fakePromise),
  ];
}

describe.each(ENGINES)('webhook address checks on %s', (engine) => {
  let service: TestService;
  let hook: Receiver;
  beforeAll(async () => {
    service = await startService(engine); // WEBHOOK_ALLOW_PRIVATE unset
    hook = await receiver();
  });
  afterAll(async () => {
    await hook.close();
    await service.close();
  });
  const admin = (url: string, body?: object) =>
    client(service)
      .post(`${NS}${url}`)
      .auth(...service.as('administrator'))
      .send(body);

  it(
    'refuses non-http(s) URLs and private addresses, and names that resolve to them at delivery',
    async () => {
      for (const url of [
        'ftp://example.com/hook',
        'file:///etc/passwd',
        'http://127.0.0.1/hook',
        'http://10.1.2.3/',
        'http://169.254.169.254/latest',
        'http://[::1]:8080/',
        'http://[::ffff:127.0.0.1]/',
        'http://user:pw@example.com/',
        'not a url',
      ]) {
        const res = await admin('/webhooks', { url, events: ['*'] });
        expect([url, res.status, res.body.data?.params]).toEqual([url, 400, { url: expect.any(String) }]);
      }
      const created = await admin('/webhooks', { url: `http://localhost:${hook.port}/hook`, events: ['*'] });
      expect(created.status).toBe(201);
      await admin(`/webhooks/${created.body.id}/ping`);
      const dispatcher = startDispatcher(service.app.locals.context as AppContext, createLogger('silent'), {
        loop: false,
      });
      await dispatcher.tick();
      expect(hook.received).toHaveLength(0);
      const log = await client(service)
        .get(`${NS}/webhooks/${created.body.id}/deliveries`)
        .auth(...service.as('administrator'));
      expect(log.body.deliveries[0].attempts[0]).toMatchObject({
        status: null,
        error: expect.stringMatching(/refused: localhost resolves to the non-public address/),
      });
    },
    TIMEOUT,
  );
  it(
    'refuses every IPv6 notation of a non-public address, and accepts public ones',
    async () => {
      for (const address of [...NON_PUBLIC, '0.0.0.0']) {
        const url = `http://${address.includes(':') ? `[${address}]` : address}:${hook.port}/hook`;
        const res = await admin('/webhooks', { url, events: ['*'] });
        expect([url, res.status, res.body.data?.params]).toEqual([url, 400, { url: expect.any(String) }]);
      }
      for (const url of ['http://8.8.8.8/hook', 'https://[2606:4700::1111]/hook', 'http://[::ffff:8.8.8.8]/']) {
        const res = await admin('/webhooks', { url, events: ['*'] });
        expect([url, res.status]).toEqual([url, 201]);
      }
      await service.database.db('webhooks').delete();
    },
    TIMEOUT,
  );

  /** Pings every subscription, runs the dispatcher once over them all, and gives each one's first attempt. */
  const pingAll = async (ids: number[]) => {
    for (const id of ids) expect((await admin(`/webhooks/${id}/ping`)).status).toBeLessThan(300);
    const dispatcher = startDispatcher(service.app.locals.context as AppContext, createLogger('silent'), {
      loop: false,
    });
    while ((await dispatcher.tick()) > 0);
    const attempts = [];
    for (const id of ids) {
      const log = await client(service)
        .get(`${NS}/webhooks/${id}/deliveries`)
        .auth(...service.as('administrator'));
      attempts.push(log.body.deliveries[0]?.attempts[0]);
    }
    return attempts;
  };

  it(
    'refuses at delivery names that resolve to any of them',
    async () => {
      const spies = attackerDns();
      try {
        const ids: number[] = [];
        for (const [n] of NON_PUBLIC.entries()) {
          const created = await admin('/webhooks', {
            url: `http://${n}.attacker.test:${hook.port}/hook`,
            events: ['*'],
          });
          expect(created.status).toBe(201);
          ids.push(created.body.id);
        }
        const attempts = await pingAll(ids);
        expect(hook.received).toHaveLength(0);
        expect(attempts.map((a) => [a?.status, a?.error])).toEqual(
          NON_PUBLIC.map((address, n) => [
            null,
            `refused: ${n}.attacker.test resolves to the non-public address ${address}`,
          ]),
        );
      } finally {
        for (const spy of spies) spy.mockRestore();
        await service.database.db('webhooks').delete();
      }
    },
    TIMEOUT,
  );

  it(
    'refuses at delivery a literal stored before the rule was tightened',
    async () => {
      const ids: number[] = [];
      for (const address of NON_PUBLIC) {
        const created = await admin('/webhooks', { url: `http://example.com:${hook.port}/hook`, events: ['*'] });
        const url = `http://[${address}]:${hook.port}/hook`;
        await service.database.db('webhooks').where({ id: created.body.id }).update({ url });
        ids.push(created.body.id);
      }
      const attempts = await pingAll(ids);
      expect(hook.received).toHaveLength(0);
      expect(attempts.map((a) => [a.status, a.error])).toEqual(
        NON_PUBLIC.map(() => [null, expect.stringMatching(/^refused: .* resolves to the non-public address /)]),
      );
      await service.database.db('webhooks').delete();
    },
    TIMEOUT,
  );
});

/**
 * Writes the spec's request and response examples (`openapi/components/examples/*.yaml`) from a real run: the service
 * on a fresh in-memory SQLite database at the tests' instant (`TEST_NOW`), with `PUBLIC_URL` set to the example host,
 * answers the requests below, and every example is the body it received or answered, so ids, dates and URLs cohere.
 * It is run by hand when the records change shape (`npx tsx scripts/spec-examples.ts`), after which the files are
 * reviewed as a diff. Two answers too long to read whole (the namespace index, this document) are cut here, in the
 * open (D82). `test/unit/spec-examples.test.ts` checks every example against its schema;
 * `test/http/spec-examples.test.ts` replays these calls on both engines and compares the answers' shapes with the
 * files.
 */
import fs from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import path from 'node:path';
import request from 'supertest';
import YAML from 'yaml';
import type { AppContext } from '../src/http/context';
import { startDispatcher } from '../src/integrations/webhooks/dispatcher';
import { createLogger } from '../src/logger';
import { NS, startService } from '../test/support/app';
import type { Engine } from '../test/support/engines';

const OUT = path.resolve(__dirname, '..', 'openapi', 'components', 'examples');
const SITE = 'https://calendar.example.org';
const HOOK_URL = 'https://hooks.example.net/calendar';
/** The caller's address in the audit trail (a documentation address, RFC 5737). */
const CLIENT_ADDRESS = '198.51.100.23';

type Body = unknown;

/** A named example as the spec holds it: a file `openapi/components/examples/<name>.yaml`. */
export interface Example {
  summary: string;
  value: Body;
}

/** Writes the examples into the spec's folder, one file each. */
export function writeExamples(examples: Map<string, Example>, dir = OUT): void {
  for (const [name, example] of examples) {
    fs.writeFileSync(path.join(dir, `${name}.yaml`), YAML.stringify(example, { lineWidth: 0 }));
  }
}

/** A receiver for the webhook examples: keeps each message and answers 204. */
async function receiver(): Promise<{ url: string; received: Body[]; close(): Promise<void> }> {
  const received: Body[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      received.push(JSON.parse(Buffer.concat(chunks).toString('utf8')));
      res.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/calendar`,
    received,
    close: () => new Promise((resolve) => server.close(() => resolve())),
  };
}

/**
 * The text a change stream sends while `act` runs: opened as `auth` (its `retry` line read first), and read until
 * a deletion's event has arrived whole. Pings wait for a quiet stream: none are sent in this short while.
 */
async function streamDuring(port: number, auth: [string, string], act: () => Promise<void>): Promise<string> {
  const authorization = `Basic ${Buffer.from(auth.join(':')).toString('base64')}`;
  let text = '';
  let opened!: () => void;
  let done!: () => void;
  const open = new Promise<void>((resolve) => (opened = resolve));
  const received = new Promise<void>((resolve) => (done = resolve));
  const req = http.get(`http://127.0.0.1:${port}${NS}/changes/stream`, { headers: { authorization } }, (res) => {
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
      if (text.includes('retry:')) opened();
      if (/"action":"deleted"[^\n]*\n\n/.test(text)) done();
    });
  });
  try {
    await open;
    await act();
    await received;
  } finally {
    req.destroy();
  }
  return text.slice(0, text.lastIndexOf('\n\n') + 2);
}

/** Runs the service on a fresh database of `engine` through the calls below; the examples, by name. */
export async function recordExamples(engine: Engine = 'sqlite'): Promise<Map<string, Example>> {
  const examples = new Map<string, Example>();
  const write = (name: string, summary: string, value: Body) => {
    if (examples.has(name)) throw new Error(`example ${name} recorded twice`);
    examples.set(name, { summary, value });
  };
  const service = await startService(
    engine,
    {
      PUBLIC_URL: SITE,
      SITE_TIMEZONE: 'Europe/Amsterdam',
      WEBHOOK_ALLOW_PRIVATE: '1',
    },
    createLogger(process.env.LOG_LEVEL ?? 'silent'),
  );
  const hook = await receiver();
  try {
    await calls();
  } finally {
    await hook.close();
    await service.close();
  }
  return examples;

  async function calls(): Promise<void> {
    /** The receiver's local URL as the examples name it. */
    const { port } = service.server.address() as AddressInfo;
    const tidy = (value: Body): Body =>
      JSON.parse(
        JSON.stringify(value)
          .replaceAll(hook.url, HOOK_URL)
          .replaceAll(`http://127.0.0.1:${port}`, SITE)
          .replaceAll('"127.0.0.1"', `"${CLIENT_ADDRESS}"`),
      );
    const as = (role: 'administrator' | 'editor') => service.as(role);
    const call = async (
      method: 'get' | 'post' | 'put' | 'patch' | 'delete',
      url: string,
      body?: object,
      { role = 'editor', accept }: { role?: 'administrator' | 'editor' | null; accept?: string } = {},
    ) => {
      let req = request(service.server)[method](`${NS}${url}`);
      if (role) req = req.auth(...as(role));
      if (accept) req = req.set('Accept', accept);
      const res = await (body ? req.send(body) : req);
      if (res.status >= 300)
        throw new Error(`${method.toUpperCase()} ${url}: ${res.status} ${JSON.stringify(res.body)}`);
      return res;
    };
    /** Sends `body`, records it as the request example `requestName` and the answer as `responseName`. */
    const exchange = async (
      method: 'post' | 'put' | 'patch',
      url: string,
      body: object,
      names: { request?: [string, string]; response?: [string, string] },
      role: 'administrator' | 'editor' = 'editor',
    ) => {
      const res = await call(method, url, body, { role });
      if (names.request) write(names.request[0], names.request[1], body);
      if (names.response) write(names.response[0], names.response[1], tidy(res.body));
      return res.body;
    };

    const start = (await call('get', '/changes', undefined, { role: null })).body.next_cursor as string;

    // terms
    const outdoors = await exchange(
      'post',
      '/categories',
      { name: 'Outdoors', description: 'Fresh air.' },
      { request: ['CategoryCreateRequest', 'A top-level category'] },
    );
    await call('post', '/categories', { name: 'Volunteering', description: 'Lend a hand.' });
    const kayaking = { name: 'Kayaking', description: 'Paddling trips on the river.', parent: outdoors.id };
    const child = await exchange('post', '/categories', kayaking, {
      request: ['CategoryWriteRequest', 'A child category'],
    });
    await exchange(
      'post',
      '/tags',
      { name: 'Family', description: 'Fun for all ages.' },
      { request: ['TagWriteRequest', 'A tag'] },
    );

    // venues and organizers
    const venueWrite = {
      venue: 'Boathouse De Hoop',
      description: '<p>The rowing club’s boathouse on the Vecht, with a slipway and a café.</p>',
      address: 'Zandpad 12',
      city: 'Utrecht',
      province: 'Utrecht',
      zip: '3601 NA',
      country: 'Netherlands',
      phone: '+31 30 123 4567',
      website: 'https://boathouse.example.net',
      geo_lat: 52.1124,
      geo_lng: 5.0396,
      show_map: true,
    };
    const venue = await exchange('post', '/venues', venueWrite, {
      request: ['VenueCreateRequest', 'A venue with an address and coordinates'],
      response: ['VenueCreatedResponse', 'The venue created'],
    });
    const organizer = await exchange(
      'post',
      '/organizers',
      {
        organizer: 'Friends of the Vecht',
        description: '<p>Volunteers who keep the river clean since 1998.</p>',
        email: 'info@vecht.example.net',
        phone: '+31 30 765 4321',
        website: 'https://vecht.example.net',
      },
      {
        request: ['OrganizerCreateRequest', 'An organizer with contact details'],
        response: ['OrganizerCreatedResponse', 'The organizer created'],
      },
    );
    const second = await call('post', '/organizers', {
      organizer: 'Utrecht Rowing Club',
      email: 'board@rowing.example.net',
      website: 'https://rowing.example.net',
    });

    // an event series with a venue, two organizers, categories and tags
    const eventWrite = {
      title: 'River Cleanup',
      description: '<p>Two hours on the water collecting litter. Gloves, grabbers and coffee provided.</p>',
      excerpt: 'A morning on the river.',
      status: 'publish',
      timezone: 'Europe/Amsterdam',
      start_date: '2027-07-03 09:30:00',
      end_date: '2027-07-03 11:30:00',
      cost: '€5',
      website: 'https://vecht.example.net/cleanup',
      venue: venue.id,
      organizer: [organizer.id, second.body.id],
      categories: ['kayaking', 'Volunteering'],
      tags: ['Family'],
      recurrence: { rrule: 'FREQ=WEEKLY;BYDAY=SA;COUNT=4' },
    };
    const event = await exchange('post', '/events', eventWrite, {
      request: ['EventCreateRequest', 'A weekly series with a venue, organizers, categories and a tag'],
      response: ['EventCreatedResponse', 'The series created: its first occurrence'],
    });
    await exchange(
      'post',
      '/events?i18n_language=de',
      {
        title: 'Sommerkonzert am Kanal',
        status: 'publish',
        description: '<p>Ein Streichquartett spielt Haydn und Schubert am Wasser.</p>',
        start_date: '2027-08-14 19:00:00',
        end_date: '2027-08-14 21:00:00',
        timezone: 'Europe/Berlin',
        cost: ['0€', '15€'],
        venue: { venue: 'Kulturhafen Ost', address: 'Hafenstraße 4', city: 'Berlin', country: 'Germany' },
        organizer: [{ organizer: 'Kammermusik Berlin e.V.', email: 'kontakt@kammermusik.example.de' }],
        categories: 'Music',
      },
      { request: ['EventCreateInlineRequest', 'A German event creating its venue and organizer inline'] },
    );

    // translations: a German and a Japanese title and description of the series
    const deWrite = {
      title: 'Flussreinigung',
      description:
        '<p>Zwei Stunden auf dem Wasser, um Müll zu sammeln. Handschuhe, Greifzangen und Kaffee gestellt.</p>',
      excerpt: 'Ein Vormittag auf dem Fluss.',
      recurrence_scope: 'all',
    };
    const de = await call('post', `/events/${event.id}?i18n_language=de`, deWrite);
    write('EventTranslateRequest', 'The German text of an event (`?i18n_language=de`)', deWrite);
    write(
      'EventTranslatedResponse',
      'The event after its German text was written (`?i18n_language=de`)',
      tidy(de.body),
    );
    const jaWrite = {
      title: '川の清掃活動',
      description: '<p>ボートで2時間、川のごみを拾います。手袋・トング・コーヒーを用意しています。</p>',
      excerpt: '川で過ごす朝のひととき。',
      recurrence_scope: 'all',
    };
    await call('post', `/events/${event.id}?i18n_language=ja`, jaWrite);
    write('EventTranslateJapaneseRequest', 'The Japanese text of an event (`?i18n_language=ja`)', jaWrite);

    const read = await call('get', `/events/${event.id}`, undefined, { role: null });
    write('EventResponse', 'A published event: the first occurrence of a weekly series', tidy(read.body));
    const readJa = await call('get', `/events/${event.id}?i18n_language=ja`, undefined, { role: null });
    write('EventJapaneseResponse', 'The same event in Japanese (`?i18n_language=ja`)', tidy(readJa.body));
    const ical = await call('get', `/events/ical/${event.id}`, undefined, { role: null, accept: 'text/calendar' });
    write('EventCalendar', 'A weekly series as one VEVENT with its RRULE', tidy(ical.text));

    const list = await call('get', '/events?per_page=2&start_date=2027-07-01', undefined, { role: null });
    write('EventListResponse', 'The first page of events, two per page', tidy(list.body));
    const listDe = await call('get', '/events?per_page=1&start_date=2027-07-01&i18n_language=de', undefined, {
      role: null,
    });
    write('EventListGermanResponse', 'A page of events in German (`?i18n_language=de`)', tidy(listDe.body));
    const feed = await call('get', '/events/ical?start_date=2027-07-01', undefined, { role: null });
    write('EventsCalendar', 'The feed of upcoming events', tidy(feed.text));
    const occurrences = await call('get', `/events/occurrences/${event.id}?per_page=2`, undefined, {
      role: null,
    });
    write(
      'EventOccurrencesResponse',
      'The first two of the four occurrences of a weekly series',
      tidy(occurrences.body),
    );

    const patchBody = { cost: '€7.50', featured: true, recurrence_scope: 'following' };
    const series = (await call('get', `/events/occurrences/${event.id}`, undefined, { role: null })).body.events;
    const third = series[2];
    await exchange('patch', `/events/${third.id}`, patchBody, {
      request: ['EventPatchRequest', 'A new cost from this occurrence on'],
      response: ['EventUpdatedResponse', 'The occurrence updated: a series of its own from now on'],
    });
    const moved = await exchange(
      'post',
      `/events/by-slug/${series[1].slug}`,
      { start_date: '2027-07-10 10:00:00', end_date: '2027-07-10 12:00:00', recurrence_scope: 'this' },
      { request: ['EventMoveOccurrenceRequest', 'One occurrence an hour later, detached from its series'] },
    );
    const trashed = await call('delete', `/events/${moved.id}`);
    write('EventDeletedResponse', 'An occurrence moved to the trash', tidy(trashed.body));

    // term reads, after the events that count them
    write('CategoryResponse', 'A category with a parent', tidy((await call('get', `/categories/${child.id}`)).body));
    const categories = await call('get', '/categories?per_page=1&page=2', undefined, { role: null });
    write('CategoryListResponse', 'The second page of categories, one per page', tidy(categories.body));
    const tags = await call('get', '/tags', undefined, { role: null });
    write('TagListResponse', 'A page of tags', tidy(tags.body));
    write('TagResponse', 'A tag', tidy((await call('get', `/tags/${tags.body.tags[0].id}`)).body));

    // venue and organizer reads, updates, deletes
    const venueList = await call('get', '/venues', undefined, { role: null });
    write('VenueListResponse', 'A page of venues', tidy(venueList.body));
    await exchange(
      'patch',
      `/venues/${venue.id}`,
      { phone: '+31 30 123 4500' },
      {
        request: ['VenuePatchRequest', 'A new phone number'],
        response: ['VenueResponse', 'A venue'],
      },
    );
    const organizers = await call('get', '/organizers', undefined, { role: null });
    write('OrganizerListResponse', 'A page of organizers', tidy(organizers.body));
    await exchange(
      'patch',
      `/organizers/${organizer.id}`,
      { phone: '+31 30 765 4300' },
      {
        request: ['OrganizerPatchRequest', 'A new phone number'],
        response: ['OrganizerResponse', 'An organizer'],
      },
    );
    await exchange(
      'post',
      `/organizers/by-slug/${second.body.slug}`,
      { slug: 'rowing-club-utrecht' },
      { request: ['OrganizerSlugRequest', 'A new slug'] },
    );

    // the change feed
    const changes = await call('get', `/changes?limit=3&cursor=${start}`);
    write('ChangeListResponse', 'The first three changes', tidy(changes.body));

    // the change stream: a tag created and deleted while a stream is open
    const streamed = await streamDuring(port, as('editor'), async () => {
      const tag = await call('post', '/tags', { name: 'Temporary' });
      await call('delete', `/tags/${tag.body.id}?force=true`);
    });
    write('ChangeStream', 'A tag created and deleted while the stream is open', tidy(streamed));

    // webhooks
    const context = service.app.locals.context as AppContext;
    const dispatcher = startDispatcher(context, createLogger('silent'), { loop: false });
    const webhookWrite = {
      url: hook.url,
      events: ['event.created', 'event.updated', 'event.deleted'],
      description: 'Sync to the website',
    };
    const created = await call('post', '/webhooks', webhookWrite, { role: 'administrator' });
    write('WebhookCreateRequest', 'Events created, updated and deleted', tidy(webhookWrite));
    write('WebhookCreatedResponse', 'The subscription created, with its secret (shown once)', tidy(created.body));
    const hookId = created.body.id;
    const ping = await call('post', `/webhooks/${hookId}/ping`, undefined, { role: 'administrator' });
    write('WebhookDeliveryAcceptedResponse', 'A delivery queued', tidy(ping.body));
    /** Delivers what is due: a few passes are enough for one message each. */
    const deliver = async () => {
      for (let pass = 0; pass < 3 && (await dispatcher.tick()) > 0; pass++);
    };
    await deliver();
    const patched = await exchange(
      'patch',
      `/webhooks/${hookId}`,
      { events: ['*'], description: 'Everything, for the archive' },
      { request: ['WebhookPatchRequest', 'Every kind of change'] },
      'administrator',
    );
    write('WebhookResponse', 'A subscription', tidy(patched));
    const hooks = await call('get', '/webhooks', undefined, { role: 'administrator' });
    write('WebhookListResponse', 'The subscriptions', tidy(hooks.body));
    const deliveries = await call('get', `/webhooks/${hookId}/deliveries`, undefined, { role: 'administrator' });
    write('WebhookDeliveryListResponse', 'A delivered ping', tidy(deliveries.body));
    const rotated = await call('post', `/webhooks/${hookId}/rotate-secret`, undefined, { role: 'administrator' });
    await call('patch', `/events/${event.id}`, { featured: true, recurrence_scope: 'all' });
    await deliver();
    const message = hook.received.find((m) => (m as { type: string }).type === 'event.updated');
    if (!message) throw new Error(`no event.updated message among ${hook.received.length}`);
    write('WebhookMessageEventUpdated', 'An event updated', tidy(message));
    write('WebhookRotatedResponse', 'The subscription with its new secret (shown once)', tidy(rotated.body));

    // application passwords
    const passwordWrite = { name: 'Calendar app on my phone', scope: 'read' };
    const password = await call('post', '/users/me/application-passwords', passwordWrite);
    write('AppPasswordCreateRequest', 'A read-only password for a calendar app', passwordWrite);
    write('AppPasswordCreatedResponse', 'The password created (shown once)', tidy(password.body));
    const passwords = await call('get', '/users/me/application-passwords');
    write('AppPasswordListResponse', 'A user’s application passwords', tidy(passwords.body));
    const revoked = await call('delete', `/users/me/application-passwords/${password.body.uuid}`);
    write('AppPasswordRevokedResponse', 'One password revoked', tidy(revoked.body));

    // the audit trail
    const audit = await call('get', '/audit?per_page=3', undefined, { role: 'administrator' });
    write('AuditListResponse', 'The three latest entries', tidy(audit.body));

    // two answers too long to show whole: one route of the index, the head of the document
    const index = (await call('get', '/', undefined, { role: null })).body;
    const route = `/${index.namespace}/events/ical/(?P<id>\\d+)`;
    write(
      'NamespaceIndexResponse',
      'One route of the index (the answer lists every route)',
      tidy({ namespace: index.namespace, routes: { [route]: index.routes[route] }, _links: index._links }),
    );
    const doc = (await call('get', '/doc', undefined, { role: null })).body;
    write(
      'OpenApiDocumentResponse',
      'The head of this document (its paths and components left out here)',
      tidy({
        openapi: doc.openapi,
        info: {
          title: doc.info.title,
          version: doc.info.version,
          summary: doc.info.summary,
          license: doc.info.license,
        },
        servers: doc.servers,
        paths: {},
        components: {},
      }),
    );

    await dispatcher.stop();
  }
}

if (require.main === module) {
  recordExamples()
    .then((examples) => {
      writeExamples(examples);
      console.log(`${examples.size} examples written to ${path.relative(process.cwd(), OUT)}/`);
    })
    .catch((err: unknown) => {
      console.error(err);
      process.exitCode = 1;
    });
}

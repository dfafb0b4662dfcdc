/**
 * The breaking-change gate (scripts/spec-diff.ts, docs/decisions.md D85): one fixture per kind of break, each of which
 * must be caught, changes a generated client survives, which must pass, the version and changelog policy, and the CLI
 * against git repositories made here (with a release tag, after a break, with no tag at all).
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  breakingChanges,
  changelogBreaking,
  group,
  judge,
  listed,
  run,
  type Break,
  type Finding,
} from '../../scripts/spec-diff';

type Doc = Record<string, any>;

const json = (schema: Doc) => ({ content: { 'application/json': { schema } } });

/** A small spec in the shape of ours: `$ref`s to named schemas, parameters, a body, a list, a webhook. */
function base(): Doc {
  return {
    openapi: '3.1.1',
    info: { title: 'fixture', version: '1.0.0' },
    paths: {
      '/events': {
        get: {
          operationId: 'listEvents',
          parameters: [
            { $ref: '#/components/parameters/per_page' },
            { name: 'status', in: 'query', schema: { type: 'string', enum: ['publish', 'draft'] } },
            { name: 'search', in: 'query', schema: { type: 'string' } },
          ],
          responses: { 200: { description: 'ok', ...json({ $ref: '#/components/schemas/EventList' }) } },
        },
        post: {
          operationId: 'createEvent',
          requestBody: { ...json({ $ref: '#/components/schemas/EventWrite' }) },
          responses: {
            201: { description: 'created', ...json({ $ref: '#/components/schemas/Event' }) },
            400: { description: 'bad', ...json({ type: 'object' }) },
          },
        },
      },
      '/events/{id}': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'integer' } }],
        get: {
          operationId: 'getEvent',
          responses: {
            200: {
              description: 'ok',
              content: {
                'application/json': { schema: { $ref: '#/components/schemas/Event' } },
                'text/calendar': { schema: { type: 'string' } },
              },
            },
          },
        },
        delete: { operationId: 'deleteEvent', responses: { 200: { description: 'ok' } } },
      },
    },
    webhooks: {
      change: {
        post: {
          operationId: 'changeMessage',
          requestBody: { required: true, ...json({ $ref: '#/components/schemas/Change' }) },
          responses: { 200: { description: 'ok' } },
        },
      },
    },
    components: {
      parameters: {
        per_page: { name: 'per_page', in: 'query', schema: { type: 'integer', minimum: 1 } },
      },
      schemas: {
        Event: {
          type: 'object',
          required: ['id', 'title', 'cost', 'venue'],
          properties: {
            id: { type: 'integer' },
            title: { type: 'string' },
            cost: { type: 'string' },
            status: { type: 'string', enum: ['publish', 'draft'] },
            venue: { $ref: '#/components/schemas/Venue' },
            tags: { type: 'array', items: { $ref: '#/components/schemas/Tag' } },
            website: { type: ['string', 'null'] },
          },
        },
        Venue: { type: 'object', properties: { id: { type: 'integer' }, city: { type: 'string' } } },
        Tag: {
          type: 'object',
          properties: {
            id: { type: 'integer' },
            children: { type: 'array', items: { $ref: '#/components/schemas/Tag' } },
          },
        },
        EventList: {
          type: 'object',
          properties: { events: { type: 'array', items: { $ref: '#/components/schemas/Event' } } },
        },
        EventWrite: {
          allOf: [
            { $ref: '#/components/schemas/EventFields' },
            { type: 'object', required: ['title'], properties: { title: { type: 'string' } } },
          ],
        },
        EventFields: {
          type: 'object',
          properties: {
            start_date: { type: 'string' },
            status: { type: 'string', enum: ['publish', 'draft', 'pending'] },
            all_day: { type: 'boolean' },
            description: { type: ['string', 'null'] },
          },
        },
        Change: {
          type: 'object',
          required: ['id'],
          properties: { id: { type: 'integer' }, action: { type: 'string' } },
        },
      },
    },
  };
}

function changed(mutate: (doc: Doc) => void): Break[] {
  const after = base();
  mutate(after);
  return breakingChanges(base(), after);
}

const schemas = (doc: Doc) => doc.components.schemas;

/** Each kind of break: the mutation and what the gate must say about it. */
const BREAKS: Array<[string, (doc: Doc) => void, Partial<Break>]> = [
  ['a removed operation', (d) => delete d.paths['/events/{id}'].delete, { message: 'operation removed' }],
  [
    'a removed path',
    (d) => delete d.paths['/events/{id}'],
    { operation: 'GET /events/{id}', message: 'operation removed' },
  ],
  [
    'a renamed parameter',
    (d) => {
      d.paths['/events'].get.parameters[2].name = 'q';
    },
    { operation: 'GET /events', where: 'query parameter `search`', message: 'removed (or renamed)' },
  ],
  [
    'a renamed path parameter',
    (d) => {
      d.paths['/events/{event_id}'] = d.paths['/events/{id}'];
      delete d.paths['/events/{id}'];
      d.paths['/events/{event_id}'].parameters[0].name = 'event_id';
    },
    { operation: 'GET /events/{id}', where: 'path parameter `id`', message: 'removed (or renamed)' },
  ],
  [
    'a new required parameter',
    (d) => d.paths['/events'].get.parameters.push({ name: 'lang', in: 'query', required: true, schema: {} }),
    { where: 'query parameter `lang`', message: 'new, and required' },
  ],
  [
    'a parameter made required',
    (d) => {
      d.paths['/events'].get.parameters[1].required = true;
    },
    { where: 'query parameter `status`', message: 'now required' },
  ],
  [
    'a newly required request-body property',
    (d) => {
      schemas(d).EventWrite.allOf[1].required.push('start_date');
    },
    { operation: 'POST /events', where: 'EventWrite.start_date', message: 'field now required' },
  ],
  [
    'a request body made required',
    (d) => {
      d.paths['/events'].post.requestBody.required = true;
    },
    { where: 'request body', message: 'now required' },
  ],
  [
    'a narrowed parameter enum',
    (d) => {
      d.paths['/events'].get.parameters[1].schema.enum = ['publish'];
    },
    { message: 'enum narrowed: "draft" no longer allowed' },
  ],
  [
    'a narrowed enum in a request body',
    (d) => {
      schemas(d).EventFields.properties.status.enum = ['publish', 'draft'];
    },
    { component: 'EventFields', where: 'EventFields.status', message: 'enum narrowed: "pending" no longer allowed' },
  ],
  [
    'a changed type of a parameter',
    (d) => {
      d.components.parameters.per_page.schema.type = 'string';
    },
    { message: 'type changed from integer to string' },
  ],
  [
    'a changed type of a request field',
    (d) => {
      schemas(d).EventFields.properties.all_day.type = 'string';
    },
    { where: 'EventFields.all_day', message: 'type changed from boolean to string' },
  ],
  [
    'a request field that no longer takes null',
    (d) => {
      schemas(d).EventFields.properties.description.type = 'string';
    },
    { where: 'EventFields.description', message: 'type changed from null | string to string' },
  ],
  [
    'a changed type of a response field',
    (d) => {
      schemas(d).Event.properties.cost.type = 'number';
    },
    { where: 'Event.cost', message: 'type changed from string to number' },
  ],
  [
    'a response field that may now be null',
    (d) => {
      schemas(d).Event.properties.title.type = ['string', 'null'];
    },
    { where: 'Event.title', message: 'type changed from string to null | string' },
  ],
  [
    'a removed response field',
    (d) => delete schemas(d).Event.properties.cost,
    { component: 'Event', where: 'Event.cost', message: 'field removed' },
  ],
  [
    'a response field no longer always present',
    (d) => {
      schemas(d).Event.required = ['id', 'title', 'venue'];
    },
    { where: 'Event.cost', message: 'field no longer always present' },
  ],
  [
    'a removed field of a nested response object',
    (d) => delete schemas(d).Venue.properties.city,
    { where: 'Venue.city', message: 'field removed' },
  ],
  [
    'a changed type inside a recursive schema',
    (d) => {
      schemas(d).Tag.properties.id.type = 'string';
    },
    { where: 'Tag.id', message: 'type changed from integer to string' },
  ],
  [
    'a removed request field',
    (d) => delete schemas(d).EventFields.properties.all_day,
    { operation: 'POST /events', where: 'EventFields.all_day', message: 'field removed' },
  ],
  [
    'a removed success response',
    (d) => {
      d.paths['/events/{id}'].delete.responses = { 204: { description: 'gone' } };
    },
    { operation: 'DELETE /events/{id}', where: 'response 200', message: 'removed' },
  ],
  [
    'a removed response media type',
    (d) => delete d.paths['/events/{id}'].get.responses[200].content['text/calendar'],
    { where: 'response 200 (text/calendar)', message: 'media type removed' },
  ],
  [
    'a removed webhook payload field',
    (d) => delete schemas(d).Change.properties.action,
    { operation: 'WEBHOOK change', where: 'Change.action', message: 'field removed' },
  ],
  ['a removed webhook', (d) => delete d.webhooks.change, { operation: 'WEBHOOK change', message: 'webhook removed' }],
];

/** Changes a client generated from the old spec keeps working with. */
const COMPATIBLE: Array<[string, (doc: Doc) => void]> = [
  ['a new optional parameter', (d) => d.paths['/events'].get.parameters.push({ name: 'tz', in: 'query', schema: {} })],
  [
    'a new operation',
    (d) => {
      d.paths['/events/{id}'].put = { operationId: 'updateEvent', responses: { 200: { description: 'ok' } } };
    },
  ],
  [
    'a new path',
    (d) => {
      d.paths['/venues'] = { get: { operationId: 'listVenues', responses: { 200: { description: 'ok' } } } };
    },
  ],
  [
    'a new optional request field',
    (d) => {
      schemas(d).EventFields.properties.cost = { type: 'string' };
    },
  ],
  [
    'a new response field, even a required one',
    (d) => {
      schemas(d).Event.properties.slug = { type: 'string' };
      schemas(d).Event.required.push('slug');
    },
  ],
  [
    'a widened parameter enum',
    (d) => {
      d.paths['/events'].get.parameters[1].schema.enum.push('pending');
    },
  ],
  [
    'a widened response enum',
    (d) => {
      schemas(d).Event.properties.status.enum.push('future');
    },
  ],
  [
    'a request field that now also takes null',
    (d) => {
      schemas(d).EventFields.properties.all_day.type = ['boolean', 'null'];
    },
  ],
  [
    'an integer request field that takes any number',
    (d) => {
      d.components.parameters.per_page.schema.type = 'number';
    },
  ],
  [
    'a required request field made optional',
    (d) => {
      schemas(d).EventWrite.allOf[1].required = [];
    },
  ],
  [
    'a response field that may no longer be null',
    (d) => {
      schemas(d).Event.properties.website.type = 'string';
    },
  ],
  [
    'a new response status and new texts',
    (d) => {
      d.paths['/events'].post.responses[409] = { description: 'conflict' };
      d.paths['/events'].post.summary = 'Create an event';
      schemas(d).Event.description = 'An event.';
    },
  ],
  [
    'a named schema moved inline',
    (d) => {
      d.paths['/events/{id}'].get.responses[200].content['application/json'].schema = structuredClone(schemas(d).Event);
      d.paths['/events/{id}'].get.responses[200].content['application/json'].schema.properties.venue = structuredClone(
        schemas(d).Venue,
      );
    },
  ],
];

describe('spec-diff: breaking changes', () => {
  it('finds nothing between a spec and itself', () => {
    expect(breakingChanges(base(), base())).toEqual([]);
  });

  it.each(BREAKS)('fails on %s', (_name, mutate, expected) => {
    const breaks = changed(mutate);
    expect(breaks).toContainEqual(expect.objectContaining(expected));
  });

  it.each(COMPATIBLE)('passes %s', (_name, mutate) => {
    expect(changed(mutate)).toEqual([]);
  });

  it('groups a break of a named schema over every operation that uses it', () => {
    const findings = group(changed((d) => delete schemas(d).Event.properties.cost));
    expect(findings).toEqual([
      {
        component: 'Event',
        where: 'Event.cost',
        message: 'field removed',
        operations: ['GET /events', 'POST /events', 'GET /events/{id}'],
      },
    ]);
  });
});

describe('spec-diff: the version and changelog policy', () => {
  const removed: Finding = {
    where: 'DELETE /events/{id}',
    message: 'operation removed',
    operations: ['DELETE /events/{id}'],
  };
  const field: Finding = {
    component: 'Event',
    where: 'Event.cost',
    message: 'field removed',
    operations: ['GET /events', 'GET /events/{id}'],
  };
  const changelog = (breaking: string) =>
    `# Changelog\n\n## 2.0.0 (unreleased)\n\n### Added\n\n- \`GET /venues\`\n\n### Breaking\n\n${breaking}\n\n` +
    '## 1.0.0 (2026-11-26)\n\n### Breaking\n\n- `Event`\n';

  it('reads the code spans of the version\'s "### Breaking" part only', () => {
    const text = changelog('- `DELETE /events/{id}` is gone; use `PUT /events/{id}` with `status: trash`.');
    expect(changelogBreaking(text, '2.0.0')).toEqual(
      new Set(['DELETE /events/{id}', 'PUT /events/{id}', 'status: trash']),
    );
    expect(changelogBreaking(text, '1.0.0')).toEqual(new Set(['Event']));
    expect(changelogBreaking('## [2.0.0] - 2027-01-01\n### Breaking\n- `X`', '2.0.0')).toEqual(new Set(['X']));
    expect(changelogBreaking(text, '3.0.0')).toBeUndefined();
    expect(changelogBreaking('## 2.0.0\n### Breaking\n<!-- e.g. `GET /x` -->\n- `Y`', '2.0.0')).toEqual(new Set(['Y']));
  });

  it('names a finding by its operation, its path, its schema or its place in the schema', () => {
    expect(listed(removed, new Set(['DELETE /events/{id}']))).toBe(true);
    expect(listed(removed, new Set(['/events/{id}']))).toBe(true);
    expect(listed(removed, new Set(['/events']))).toBe(false);
    expect(listed(field, new Set(['Event']))).toBe(true);
    expect(listed(field, new Set(['Event.cost']))).toBe(true);
    expect(listed(field, new Set(['Event.title']))).toBe(false);
    expect(listed(field, new Set(['GET /events']))).toBe(false); // one of its two operations
    expect(listed(field, new Set(['GET /events', '/events/{id}']))).toBe(true);
  });

  it('passes without breaks, and refuses a version below the release or one package.json does not share', () => {
    expect(judge({ findings: [], release: '1.0.0', version: '1.0.0' }).ok).toBe(true);
    expect(judge({ findings: [], release: '1.2.0', version: '1.1.0' }).ok).toBe(false);
    expect(judge({ findings: [], release: '1.0.0', version: '1.0.0', packageVersion: '1.0.1' }).lines[0]).toMatch(
      /differs from package.json's version 1.0.1/,
    );
    expect(judge({ findings: [], release: '1.0.0', version: 'one' }).ok).toBe(false);
  });

  it('fails on a break when the major number was not raised, naming each break', () => {
    const verdict = judge({ findings: [removed, field], release: '1.0.0', version: '1.1.0', changelog: changelog('') });
    expect(verdict.ok).toBe(false);
    expect(verdict.lines.join('\n')).toMatch(/2 breaking changes since 1.0.0, and info.version 1.1.0 keeps major 1/);
    expect(verdict.lines).toContain('  `DELETE /events/{id}`: operation removed');
    expect(verdict.lines).toContain('  `Event.cost` (in GET /events, GET /events/{id}): field removed');
    const parameter: Finding = {
      where: 'query parameter `search`',
      message: 'removed (or renamed)',
      operations: ['GET /events'],
    };
    expect(judge({ findings: [parameter], release: '1.0.0', version: '1.1.0' }).lines).toContain(
      '  `GET /events`: query parameter `search`: removed (or renamed)',
    );
  });

  it('fails on a raised major without a changelog section, or with a break it does not list', () => {
    expect(judge({ findings: [removed], release: '1.0.0', version: '2.0.0' }).ok).toBe(false);
    const partly = judge({
      findings: [removed, field],
      release: '1.0.0',
      version: '2.0.0',
      changelog: changelog('- `Event`'),
    });
    expect(partly.ok).toBe(false);
    expect(partly.lines).toContain('  `DELETE /events/{id}`: operation removed');
    expect(partly.lines.join('\n')).not.toMatch(/field removed/);
  });

  it('passes a raised major whose changelog lists every break', () => {
    const text = changelog('- `DELETE /events/{id}` is gone.\n- `Event.cost` is no longer sent.');
    const verdict = judge({ findings: [removed, field], release: '1.0.0', version: '2.0.0', changelog: text });
    expect(verdict).toMatchObject({ ok: true });
    expect(verdict.lines[0]).toBe(
      '2 breaking changes since 1.0.0, accepted: major version 2 and listed in CHANGELOG.md:',
    );
  });
});

describe('spec-diff: the CLI against a git history', () => {
  const dirs: string[] = [];
  afterAll(() => {
    for (const dir of dirs) fs.rmSync(dir, { recursive: true, force: true });
  });

  const git = (dir: string, ...args: string[]) =>
    execFileSync('git', ['-c', 'user.name=t', '-c', 'user.email=t@example.org', ...args], { cwd: dir, stdio: 'pipe' });

  /** A repository with the base spec split over two files (as ours is), released as `v1.0.0`. */
  function repository(): string {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spec-diff-'));
    dirs.push(dir);
    fs.mkdirSync(path.join(dir, 'openapi'));
    git(dir, 'init', '-q');
    return dir;
  }

  /** The spec split over two files, as ours is: the bundler makes the file reference internal again. */
  function write(dir: string, doc: Doc, version: string, changelog?: string): void {
    const { Event, ...others } = doc.components.schemas;
    const main = structuredClone(doc);
    main.info.version = version;
    main.components.schemas = { ...others, Event: { $ref: 'Event.json' } };
    fs.writeFileSync(path.join(dir, 'openapi', 'openapi.yaml'), JSON.stringify(main));
    fs.writeFileSync(
      path.join(dir, 'openapi', 'Event.json'),
      JSON.stringify(Event).replaceAll('#/components/schemas/', 'openapi.yaml#/components/schemas/'),
    );
    fs.writeFileSync(path.join(dir, 'package.json'), JSON.stringify({ name: 'fixture', version }));
    if (changelog !== undefined) fs.writeFileSync(path.join(dir, 'CHANGELOG.md'), changelog);
  }

  it('passes with no release tag (a shallow clone, or no release yet), saying so', async () => {
    const dir = repository();
    write(dir, base(), '1.0.0');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'start');
    const verdict = await run(dir);
    expect(verdict.ok).toBe(true);
    expect(verdict.lines[0]).toMatch(/^no release tag \(v\*\) reachable from HEAD: nothing to compare with/);
  });

  it('compares with the last v* tag: a break fails until the major is raised and the changelog lists it', async () => {
    const dir = repository();
    write(dir, base(), '1.0.0');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'release');
    git(dir, 'tag', '-a', 'v1.0.0', '-m', '1.0.0');
    git(dir, 'tag', 'not-a-release'); // ignored: only v* tags are releases

    expect(await run(dir)).toEqual({ ok: true, lines: ['spec against v1.0.0:', 'no breaking change since 1.0.0'] });

    const broken = base();
    delete broken.components.schemas.Event.properties.cost;
    write(dir, broken, '1.1.0');
    const refused = await run(dir);
    expect(refused.ok).toBe(false);
    expect(refused.lines).toContain('  `Event.cost` (in GET /events, POST /events, GET /events/{id}): field removed');

    write(dir, broken, '2.0.0', '# Changelog\n\n## 2.0.0\n\n### Breaking\n\n- TBD\n');
    expect((await run(dir)).ok).toBe(false);
    write(dir, broken, '2.0.0', '# Changelog\n\n## 2.0.0\n\n### Breaking\n\n- `Event.cost` is no longer sent.\n');
    expect(await run(dir)).toMatchObject({ ok: true });
  });

  it('says a shallow clone without the release tag is one, and passes', async () => {
    const dir = repository();
    write(dir, base(), '1.0.0');
    git(dir, 'add', '-A');
    git(dir, 'commit', '-qm', 'release');
    git(dir, 'tag', '-a', 'v1.0.0', '-m', '1.0.0');
    const broken = base();
    delete broken.paths['/events/{id}'];
    write(dir, broken, '1.0.1');
    git(dir, 'commit', '-qam', 'a break');
    const clone = fs.mkdtempSync(path.join(os.tmpdir(), 'spec-diff-clone-'));
    dirs.push(clone);
    git(clone, 'clone', '-q', '--depth', '1', `file://${dir}`, '.');
    const verdict = await run(clone);
    expect(verdict).toEqual({
      ok: true,
      lines: [
        'no release tag (v*) reachable from HEAD (a shallow clone): nothing to compare with, the breaking-change gate ' +
          'passes without a check',
      ],
    });
    expect((await run(dir)).ok).toBe(false); // the full history has the tag, and sees the break
  });

  it("passes this repository's spec against its last release", async () => {
    const verdict = await run(path.resolve(__dirname, '..', '..'));
    expect(verdict.lines.join('\n')).not.toMatch(/not listed|keeps major|has no "## /);
    expect(verdict.ok).toBe(true);
  });
});

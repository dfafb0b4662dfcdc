/**
 * The MCP tools come from the spec alone: a copy of the bundled document with a new operation and a new
 * parameter gives a new tool and a new argument with no code change; names, annotations and argument places follow
 * the spec; every schema compiles under JSON Schema 2020-12.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { BUNDLED_SPEC } from '../../src/paths';
import { loadSpec } from '../../src/http/spec';
import { generateTools } from '../../src/mcp/tools';
import { schemaValidator } from '../mcp/support';

const original = JSON.parse(fs.readFileSync(BUNDLED_SPEC, 'utf8'));

function toolsOf(document: unknown) {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'mcp-spec-'));
  const file = path.join(dir, 'openapi.json');
  fs.writeFileSync(file, JSON.stringify(document));
  try {
    return generateTools(loadSpec(file));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

describe('MCP tools generated from the spec', () => {
  it('turns a new operation and a new parameter of a copy of the spec into a tool and an argument', () => {
    const copy = structuredClone(original);
    copy.paths['/events/{id}/attendees'] = {
      parameters: [{ $ref: '#/components/parameters/post_id' }],
      get: {
        operationId: 'listEventAttendees',
        summary: 'List who comes to an event',
        'x-mcp': { tool: 'list_event_attendees', group: 'events', guidance: 'Names only.' },
        parameters: [{ name: 'confirmed', in: 'query', schema: { type: 'boolean' }, description: 'Only confirmed.' }],
        responses: {
          '200': {
            description: 'The attendees.',
            content: {
              'application/json': {
                schema: { type: 'object', properties: { attendees: { type: 'array', items: { type: 'string' } } } },
              },
            },
          },
        },
      },
    };
    copy.paths['/events'].get.parameters.push({
      name: 'accessible',
      in: 'query',
      description: 'Only events with step-free access.',
      schema: { type: 'boolean' },
    });
    const before = new Map(toolsOf(original).map((t) => [t.name, t]));
    const after = new Map(toolsOf(copy).map((t) => [t.name, t]));
    expect(before.has('list_event_attendees')).toBe(false);
    const attendees = after.get('list_event_attendees');
    expect(attendees).toMatchObject({
      title: 'List who comes to an event',
      group: 'events',
      annotations: { readOnlyHint: true, destructiveHint: false, idempotentHint: true },
      arguments: { id: { in: 'path', name: 'id' }, confirmed: { in: 'query', name: 'confirmed' } },
    });
    expect(attendees?.description).toBe('List who comes to an event\n\nNames only.');
    expect(attendees?.inputSchema.required).toEqual(['id']);
    expect(attendees?.outputSchema).toMatchObject({ type: 'object', properties: { attendees: { type: 'array' } } });
    expect(before.get('list_events')?.inputSchema.properties).not.toHaveProperty('accessible');
    expect(after.get('list_events')?.inputSchema.properties).toHaveProperty('accessible', {
      type: 'boolean',
      description: 'Only events with step-free access.',
    });
    expect(after.size).toBe(before.size + 1);
  });

  it('makes a tool of exactly the operations marked x-mcp, with names, places and hints from the spec', () => {
    const tools = toolsOf(original);
    const marked = Object.values(original.paths as Record<string, Record<string, { 'x-mcp'?: { tool: string } }>>)
      .flatMap((item) => Object.values(item))
      .flatMap((op) => (op && typeof op === 'object' && op['x-mcp'] ? [op['x-mcp'].tool] : []));
    expect(tools.map((t) => t.name).sort()).toEqual(marked.sort());
    const update = tools.find((t) => t.name === 'update_event');
    expect(update?.arguments).toMatchObject({
      id: { in: 'path' },
      if_match: { in: 'header', name: 'If-Match' },
      title: { in: 'body' },
      recurrence_scope: { in: 'body' }, // declared in the query and the body: sent in the body
    });
    expect(update?.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false, idempotentHint: true });
    expect(tools.find((t) => t.name === 'delete_event')?.annotations.destructiveHint).toBe(true);
    expect(tools.find((t) => t.name === 'get_event_ical')).toMatchObject({ accept: 'text/calendar' });
    expect(tools.find((t) => t.name === 'list_events')?.inputSchema.properties).not.toHaveProperty('key');
  });

  it('gives schemas that compile under JSON Schema 2020-12, without OpenAPI-only keywords', () => {
    const ajv = schemaValidator();
    for (const tool of toolsOf(original)) {
      expect(() => ajv.compile(tool.inputSchema)).not.toThrow();
      if (tool.outputSchema) expect(() => ajv.compile(tool.outputSchema as object)).not.toThrow();
      expect(JSON.stringify(tool.inputSchema)).not.toMatch(/"(example|x-[a-z-]+)":|#\/components\//);
    }
  });

  it('refuses an x-mcp tool name twice', () => {
    const copy = structuredClone(original);
    copy.paths['/venues'].get['x-mcp'].tool = 'list_events';
    expect(() => toolsOf(copy)).toThrow(/unique name/);
  });
});

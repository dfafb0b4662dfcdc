/**
 * The spec and the registry of record kinds (src/kinds/) name the same kinds: the change feed's, the audit trail's
 * and the webhooks' enums in the bundled spec are the registry's, and each kind's collection and single-record reads
 * are operations the spec has. A kind added on one side only fails here.
 */
import fs from 'node:fs';
import { BUNDLED_SPEC } from '../../src/paths';
import { KIND_NAMES, KINDS } from '../../src/kinds/registry';
import { ACTIONS } from '../../src/core/outbox';
import { AUDIT_RESOURCES } from '../../src/core/audit';
import { kindOperations } from '../../src/http/kind-operations';

interface Operation {
  operationId?: string;
}
interface Spec {
  paths: Record<string, Record<string, Operation>>;
  components: {
    schemas: Record<string, { properties?: Record<string, { enum?: string[] }>; items?: { enum?: string[] } }>;
    parameters: Record<string, { schema: { enum?: string[] } }>;
  };
}

const spec = JSON.parse(fs.readFileSync(BUNDLED_SPEC, 'utf8')) as Spec;
const { schemas, parameters } = spec.components;

/** operationId → `method path`, for every operation of the spec. */
function operations(): Map<string, string> {
  const found = new Map<string, string>();
  for (const [path, methods] of Object.entries(spec.paths))
    for (const [method, op] of Object.entries(methods))
      if (op.operationId) found.set(op.operationId, `${method} ${path}`);
  return found;
}

describe('the record kinds', () => {
  it('are the change feed resources', () => {
    expect(schemas.Change.properties?.resource.enum).toEqual(KIND_NAMES);
    expect(schemas.Change.properties?.action.enum).toEqual(ACTIONS);
  });

  it('with the service records, are the audit resources (of entries and of the filter)', () => {
    expect(AUDIT_RESOURCES).toEqual([...KIND_NAMES, 'user', 'app_password', 'webhook']);
    expect(schemas.AuditEntry.properties?.resource.enum).toEqual(AUDIT_RESOURCES);
    expect(parameters.audit_resource.schema.enum).toEqual(AUDIT_RESOURCES);
  });

  it('crossed with the actions, are the webhook event types', () => {
    const types = KIND_NAMES.flatMap((kind) => ACTIONS.map((action) => `${kind}.${action}`));
    expect(schemas.WebhookEvents.items?.enum).toEqual(['*', ...types]);
  });

  it.each(KIND_NAMES)('%s: its wire type, collection and single-record reads are in the spec', (kind) => {
    const { wireType, collection, singleReads } = KINDS[kind];
    const found = operations();
    expect(schemas[wireType]).toBeDefined();
    expect(spec.paths[`/${collection}`]).toBeDefined();
    for (const operationId of singleReads)
      expect(found.get(operationId)).toMatch(new RegExp(`^get /${collection}/(\\{id\\}|by-slug/\\{slug\\})$`));
  });
});

describe("a kind's operations (http/kind-operations.ts)", () => {
  const verbs = { list: 'list', create: 'create', get: 'get', update: 'update', remove: 'remove' };

  it('are named as the spec names them, each to its verb', () => {
    expect(kindOperations('venue', verbs, ['id', 'slug'])).toEqual({
      listVenues: 'list',
      createVenue: 'create',
      getVenue: 'get',
      updateVenue: 'update',
      replaceVenue: 'update',
      patchVenue: 'update',
      deleteVenue: 'remove',
      getVenueBySlug: 'get',
      updateVenueBySlug: 'update',
      replaceVenueBySlug: 'update',
      patchVenueBySlug: 'update',
      deleteVenueBySlug: 'remove',
    });
    expect(Object.keys(kindOperations('category', verbs, ['id']))).toEqual([
      'listCategories',
      'createCategory',
      'getCategory',
      'updateCategory',
      'replaceCategory',
      'patchCategory',
      'deleteCategory',
    ]);
  });

  it.each(KIND_NAMES)('%s: are operations of the spec (posts are addressed by slug too)', (kind) => {
    const found = operations();
    const addressed = KINDS[kind].table === 'posts' ? (['id', 'slug'] as const) : (['id'] as const);
    for (const operationId of Object.keys(kindOperations(kind, verbs, addressed)))
      expect([operationId, found.has(operationId)]).toEqual([operationId, true]);
  });
});

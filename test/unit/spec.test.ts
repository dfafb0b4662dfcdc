/** The contract itself: 52 operations, every one with a handler and `i18n_language`, and no route the spec lacks. */
import { createApp } from '../../src/app';
import { loadConfig } from '../../src/config';
import { createDb } from '../../src/db/knex';
import { createLogger } from '../../src/logger';
import { handlers } from '../../src/routes';
import { loadSpec, resolve } from '../../src/http/spec';
import { createThrottle } from '../../src/http/throttle';
import type { OpenAPIV3_1 } from 'openapi-types';

const spec = loadSpec();

describe('the bundled spec', () => {
  // the 52 of the interface, occurrences, iCalendar feeds, changes and their stream, webhooks, app passwords, audit
  it('describes the 76 operations', () => {
    expect(spec.operations).toHaveLength(76);
    expect(new Set(spec.operations.map((op) => op.operationId)).size).toBe(76);
    expect(spec.document.openapi).toBe('3.1.1');
  });

  it('has a handler for every operation and no handler without one', () => {
    expect(Object.keys(handlers).sort()).toEqual(spec.operations.map((op) => op.operationId).sort());
  });

  it.each(spec.operations.map((op) => [op.operationId, op] as const))(
    '%s accepts i18n_language with the eleven codes',
    (_id, op) => {
      const param = op.parameters.find((p) => p.name === 'i18n_language');
      expect(param?.in).toBe('query');
      const schema = resolve<OpenAPIV3_1.SchemaObject>(spec.document, param?.schema as OpenAPIV3_1.SchemaObject);
      expect(schema.enum).toEqual(['nl', 'en', 'fr', 'de', 'it', 'ja', 'nb', 'pl', 'pt-br', 'es', 'sv']);
    },
  );

  it('lets every query parameter carry reserved characters, and every array parameter be comma-separated', () => {
    for (const op of spec.operations) {
      for (const p of op.parameters.filter((param) => param.in === 'query')) {
        expect([op.operationId, p.name, p.allowReserved]).toEqual([op.operationId, p.name, true]);
        const schema = resolve<OpenAPIV3_1.SchemaObject>(spec.document, p.schema as OpenAPIV3_1.SchemaObject);
        if (schema.type === 'array') expect([p.name, p.style, p.explode]).toEqual([p.name, 'form', false]);
      }
    }
  });

  it('names the capability of every write, and of no public read (administrators-only reads need credentials)', () => {
    for (const op of spec.operations) {
      const anonymousAllowed =
        !op.definition.security || op.definition.security.some((s) => Object.keys(s).length === 0);
      expect([op.operationId, Boolean(op.capability)]).toEqual([
        op.operationId,
        op.method !== 'get' || !anonymousAllowed,
      ]);
    }
  });

  it('documents a 4xx and a default error for every operation', () => {
    for (const op of spec.operations) {
      const codes = Object.keys(op.definition.responses ?? {});
      expect([op.operationId, codes.some((c) => c.startsWith('4')), codes.includes('default')]).toEqual([
        op.operationId,
        true,
        true,
      ]);
    }
  });
});

describe('the app', () => {
  it('registers exactly the spec operations under the namespace', () => {
    const db = createDb('sqlite::memory:');
    const config = loadConfig({});
    const app = createApp(
      { config, db, spec, throttle: createThrottle(db, config) },
      { logger: createLogger('silent') },
    );
    type Layer = { route?: { path: string; methods: Record<string, boolean>; stack: unknown[] } };
    const stack = (app as unknown as { router: { stack: Layer[] } }).router.stack;
    const routes = new Set<string>();
    for (const layer of stack) {
      if (!layer.route?.path.startsWith('/calendar/events/v1')) continue;
      for (const method of Object.keys(layer.route.methods)) routes.add(`${method} ${layer.route.path}`);
    }
    const expected = spec.operations.map((op) => `${op.method} /calendar/events/v1${op.expressPath}`);
    expect([...routes].sort()).toEqual([...new Set(expected)].sort());
    return db.destroy();
  });
});

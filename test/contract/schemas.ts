/**
 * The spec's schemas as the contract run uses them: inlined (`$ref`s followed), judged by Ajv (JSON Schema 2020-12,
 * the dialect of OpenAPI 3.1, with ajv-formats) and sampled by json-schema-faker. Ajv is the referee of both
 * directions: a "valid" value is one Ajv accepts and an "invalid" one is one it refuses, so a generator's mistake
 * can never be blamed on the service.
 */
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { withFormats } from '../support/formats';
import { JSONSchemaFaker } from 'json-schema-faker';
import type { OpenAPIV3_1 } from 'openapi-types';

export type Schema = Record<string, unknown>;

/** `node` with every local `$ref` of `document` inlined (a cycle becomes `{}`, which nothing here has). */
export function inline(document: OpenAPIV3_1.Document, node: unknown, trail: string[] = []): unknown {
  if (Array.isArray(node)) return node.map((item) => inline(document, item, trail));
  if (!node || typeof node !== 'object') return node;
  const ref = (node as { $ref?: unknown }).$ref;
  if (typeof ref === 'string') {
    if (trail.includes(ref)) return {};
    const target = ref
      .replace(/^#\//, '')
      .split('/')
      .reduce<unknown>(
        (at, key) => (at as Record<string, unknown>)[key.replace(/~1/g, '/').replace(/~0/g, '~')],
        document,
      );
    const { $ref: _ref, ...siblings } = node as Record<string, unknown>;
    return { ...(inline(document, target, [...trail, ref]) as object), ...siblings };
  }
  return Object.fromEntries(Object.entries(node).map(([key, value]) => [key, inline(document, value, trail)]));
}

/** OpenAPI keywords Ajv does not know (and must not fail on), and text it does not need. */
const OPENAPI_ONLY = ['discriminator', 'xml', 'externalDocs', 'example'];

function forAjv(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(forAjv);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema)
      .filter(([key]) => !OPENAPI_ONLY.includes(key) && !key.startsWith('x-'))
      .map(([key, value]) => [key, key === 'properties' ? mapValues(value, forAjv) : forAjv(value)]),
  );
}

function mapValues(value: unknown, f: (v: unknown) => unknown): unknown {
  return Object.fromEntries(Object.entries(value as object).map(([k, v]) => [k, f(v)]));
}

export class Referee {
  private readonly strict = withFormats(new Ajv2020({ strict: false, allErrors: false, validateFormats: true }));
  /** Text parameters are read as their types (path, query, header): judge them as the validator reads them. */
  private readonly text = withFormats(
    new Ajv2020({ strict: false, allErrors: false, coerceTypes: 'array', validateFormats: true }),
  );
  private readonly compiled = new WeakMap<object, ValidateFunction>();

  accepts(schema: Schema, value: unknown): boolean {
    return this.validator(schema, this.strict, this.compiled)(structuredClone(value));
  }

  /** The errors of `value` against `schema`, as one line (empty when valid). */
  explain(schema: Schema, value: unknown): string {
    const validate = this.validator(schema, this.strict, this.compiled);
    return validate(structuredClone(value)) ? '' : this.strict.errorsText(validate.errors);
  }

  /** Whether the text form of a parameter (or its list of texts) is valid once read as the schema's type. */
  acceptsText(schema: Schema, value: string | string[]): boolean {
    return this.textWrapper(schema)({ value });
  }

  private readonly wrappers = new WeakMap<object, ValidateFunction>();
  private textWrapper(schema: Schema): ValidateFunction {
    let validate = this.wrappers.get(schema);
    if (!validate) {
      validate = this.text.compile(forAjv({ type: 'object', properties: { value: schema } }) as object);
      this.wrappers.set(schema, validate);
    }
    return validate;
  }

  private validator(schema: Schema, ajv: Ajv2020, cache: WeakMap<object, ValidateFunction>): ValidateFunction {
    let validate = cache.get(schema);
    if (!validate) {
      validate = ajv.compile(forAjv(schema) as object);
      cache.set(schema, validate);
    }
    return validate;
  }
}

/** A seeded pseudo-random source in [0, 1) (mulberry32), so that a run is replayed by its seed. */
export function seeded(seed: number): () => number {
  let state = seed >>> 0;
  return () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * A schema-valid value from json-schema-faker: its `examples` when the schema has them (realistic values, as the
 * field's tools use them first), else generated; optional properties are sent half of the time. Tries a few
 * times and returns undefined when json-schema-faker cannot produce a value Ajv accepts.
 */
export function sample(schema: Schema, random: () => number, referee: Referee): unknown {
  JSONSchemaFaker.option({
    random,
    useExamplesValue: true,
    alwaysFakeOptionals: false,
    optionalsProbability: 0.5,
    fixedProbabilities: true,
    maxItems: 3,
    maxLength: 24,
    failOnInvalidTypes: false,
    failOnInvalidFormat: false,
    refDepthMax: 3,
    omitNulls: true,
  });
  for (let attempt = 0; attempt < 8; attempt++) {
    const value = JSONSchemaFaker.generate(structuredClone(schema) as never);
    if (referee.accepts(schema, value)) return value;
  }
  return undefined;
}

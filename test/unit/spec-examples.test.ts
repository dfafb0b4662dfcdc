/**
 * The spec's examples: every request body and every success answer with a body shows at least one named
 * example, in each of its media types, and every example anywhere in the bundled document (`generated/openapi.json`,
 * as `/doc` serves it) validates against the schema of its media type, so an example can never lie. Validation is
 * Ajv's JSON Schema 2020-12 (the dialect of OpenAPI 3.1) with ajv-formats; `$ref`s resolve inside the bundle, which
 * Ajv loads whole as one schema resource.
 */
import fs from 'node:fs';
import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { withFormats } from '../support/formats';
import { BUNDLED_SPEC } from '../../src/paths';

type Node = Record<string, unknown>;
const document = JSON.parse(fs.readFileSync(BUNDLED_SPEC, 'utf8')) as Node;
const ID = 'https://calendar.example.org/openapi.json';

const pointerKey = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');
const keyOf = (key: string) => key.replace(/~1/g, '/').replace(/~0/g, '~');

/** The node at `pointer` and its own pointer, following `$ref`s (all local in the bundle). */
function at(pointer: string): { node: Node; pointer: string } {
  const node = pointer
    .split('/')
    .slice(1)
    .reduce<unknown>((n, key) => (n as Node)[keyOf(key)], document) as Node;
  return typeof node.$ref === 'string' ? at(node.$ref.replace(/^#/, '')) : { node, pointer };
}

interface MediaType {
  /** Where it is used, for messages: `POST /events request application/json`. */
  where: string;
  /** JSON pointer of the media type object, after `$ref`s. */
  pointer: string;
  node: Node;
  /** A request body or a 2xx answer with a body: must have an example. */
  needsExample: boolean;
}

/** Every media type of every request body and answer of the paths and webhooks. */
function mediaTypes(): MediaType[] {
  const found: MediaType[] = [];
  const collect = (owner: string, pointer: string, needsExample: boolean) => {
    const { node, pointer: resolved } = at(pointer);
    for (const type of Object.keys((node.content as Node | undefined) ?? {})) {
      const media = `${resolved}/content/${pointerKey(type)}`;
      found.push({ where: `${owner} ${type}`, pointer: media, node: at(media).node, needsExample });
    }
  };
  for (const group of ['paths', 'webhooks'] as const) {
    for (const [route, item] of Object.entries((document[group] as Node | undefined) ?? {})) {
      for (const [method, operation] of Object.entries(item as Node)) {
        const op = operation as Node;
        if (!op || typeof op !== 'object' || !op.responses) continue;
        const base = `/${group}/${pointerKey(route)}/${method}`;
        const name = `${method.toUpperCase()} ${route}`;
        if (op.requestBody) collect(`${name} request`, `${base}/requestBody`, true);
        for (const status of Object.keys(op.responses as Node)) {
          // a webhook's answers are the receiver's, not ours: their bodies are not ours to show
          const ours = group === 'paths' && /^2\d\d$/.test(status);
          collect(`${name} ${status}`, `${base}/responses/${status}`, ours);
        }
      }
    }
  }
  return found;
}

const MEDIA = mediaTypes();

// the whole document is one schema resource so that its `#/components/...` refs resolve; it is no schema itself, so
// it is not checked against the meta-schema, and OpenAPI's own keywords (`discriminator`, `xml`, ...) are let through
const ajv = withFormats(new Ajv2020({ strict: false, allErrors: true, validateSchema: false }));
ajv.addSchema({ ...document, $id: ID });
const validators = new Map<string, ValidateFunction>();
function validator(pointer: string): ValidateFunction {
  let validate = validators.get(pointer);
  if (!validate) {
    validate = ajv.compile({ $ref: `${ID}#${pointer}` });
    validators.set(pointer, validate);
  }
  return validate;
}

describe('examples in the spec', () => {
  it('finds the request bodies and answers it checks', () => {
    const requests = new Set(
      MEDIA.filter((m) => m.where.includes(' request ')).map((m) => m.where.split(' request')[0]),
    );
    expect(requests.size).toBeGreaterThanOrEqual(33);
    expect(MEDIA.filter((m) => m.needsExample).length).toBeGreaterThan(100);
  });

  it('shows at least one named example, with a summary, for every request body and success answer', () => {
    const missing = MEDIA.filter((m) => m.needsExample)
      .filter((m) => {
        const examples = m.node.examples as Node | undefined;
        return !examples || Object.keys(examples).length === 0;
      })
      .map((m) => m.where);
    expect(missing).toEqual([]);
    const unnamed = MEDIA.flatMap((m) =>
      Object.keys((m.node.examples as Node | undefined) ?? {})
        .filter((name) => {
          const example = at(`${m.pointer}/examples/${pointerKey(name)}`).node;
          return typeof example.summary !== 'string' || !example.summary.trim() || !('value' in example);
        })
        .map((name) => `${m.where}: ${name}`),
    );
    expect(unnamed).toEqual([]);
  });

  /** Each media type object once (answers such as `400` are shared by many operations), named by its first use. */
  const withExamples = [
    ...new Map(
      MEDIA.filter((m) => m.node.examples || 'example' in m.node)
        .reverse()
        .map((m) => [m.pointer, m]),
    ).values(),
  ].reverse();
  it.each(withExamples.map((m) => [m.where, m] as const))(
    '%s: every example validates against its schema',
    (_where, media) => {
      const schema = `${media.pointer}/schema`;
      const values: [string, unknown][] = Object.keys((media.node.examples as Node | undefined) ?? {}).map((name) => [
        name,
        at(`${media.pointer}/examples/${pointerKey(name)}`).node.value,
      ]);
      if ('example' in media.node) values.push(['example', media.node.example]);
      const validate = validator(schema);
      const errors: string[] = [];
      for (const [name, value] of values)
        if (!validate(value)) errors.push(`${name}: ${ajv.errorsText(validate.errors)}`);
      expect(errors).toEqual([]);
    },
  );

  it('catches an example that lies: the event example with one field of the wrong type', () => {
    const media = MEDIA.find((m) => m.where === 'POST /events 201 application/json') as MediaType;
    const validate = validator(`${media.pointer}/schema`);
    const [name] = Object.keys(media.node.examples as Node);
    const value = at(`${media.pointer}/examples/${pointerKey(name)}`).node.value as Node;
    expect(validate(value)).toBe(true);
    expect(validate({ ...value, all_day: 'no' })).toBe(false);
    expect(validate({ ...value, venue: { ...(value.venue as Node), geo_lat: 'north' } })).toBe(false);
  });
});

/**
 * The spec's examples against the service (D80): `scripts/spec-examples.ts` replays its calls on a fresh database of
 * each engine (every request example sent for real, answered 2xx with response validation on), and every example it
 * records has the shape of the committed one (the same keys and types all the way down; values such as timestamps,
 * secrets and ids may differ). A change to the service's output that the examples no longer show fails here: run
 * `npx tsx scripts/spec-examples.ts` and review the diff.
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';
import { type Example, recordExamples } from '../../scripts/spec-examples';
import { PROJECT_ROOT } from '../../src/paths';
import { ENGINES } from '../support/engines';

const DIR = path.join(PROJECT_ROOT, 'openapi', 'components', 'examples');
/** Examples of errors, written by hand: the script records successes only. */
const HAND_WRITTEN = new Set(['InvalidParamError']);

/** The structure of a JSON value: its types, object keys and array lengths, not its scalars. */
function shape(value: unknown): unknown {
  if (value === null) return null;
  if (Array.isArray(value)) return value.map(shape);
  if (typeof value === 'object') {
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>)
        .sort(([a], [b]) => a.localeCompare(b))
        .map(([key, item]) => [key, shape(item)]),
    );
  }
  return typeof value;
}

const committed = new Map<string, Example>(
  fs
    .readdirSync(DIR)
    .filter((file) => file.endsWith('.yaml') && !HAND_WRITTEN.has(path.basename(file, '.yaml')))
    .map((file) => [path.basename(file, '.yaml'), YAML.parse(fs.readFileSync(path.join(DIR, file), 'utf8'))]),
);

describe.each(ENGINES)('the spec examples replayed on %s', (engine) => {
  it('are sent and answered for real, and the answers have the committed examples shapes', async () => {
    const recorded = await recordExamples(engine);
    expect([...recorded.keys()].sort()).toEqual([...committed.keys()].sort());
    for (const [name, example] of recorded) {
      const mine = committed.get(name) as Example;
      expect({ name, summary: example.summary, shape: shape(example.value) }).toEqual({
        name,
        summary: mine.summary,
        shape: shape(mine.value),
      });
    }
  }, 600_000);
});

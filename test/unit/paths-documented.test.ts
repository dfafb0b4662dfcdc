/**
 * docs/architecture.md names the steps of the write path and of the list pipeline; these tests read the document and
 * the kernel's source and check that the steps named are the steps the code takes, in the same order.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

/** The bold names of a section's numbered list (`1. **name**: …`), at the given indentation. */
function documentedSteps(heading: string, indent = ''): string[] {
  const doc = read('docs/architecture.md');
  const section = doc.slice(doc.indexOf(`## ${heading}`)).split('\n## ')[0];
  const item = new RegExp(`^${indent}\\d+\\. \\*\\*([^*]+)\\*\\*`, 'gm');
  return [...section.matchAll(item)].map((match) => match[1]);
}

/** Where each call stands in a source text; -1 when it is not there. */
const positions = (source: string, calls: string[]) => calls.map((call) => source.indexOf(call));

describe('the documented paths are the code paths', () => {
  it('names the write kernel steps in the order core/write.ts takes them', () => {
    // each step of the document and the call that takes it
    const calls: Record<string, string> = {
      precondition: 'assertPrecondition(',
      work: 'await work(w)',
      'search sync': 'syncSearch(',
      'term counts': 'refreshCounts(',
      audit: 'insertAudit(',
      stamps: 'raiseStamps(',
      'change record and outbox': 'recordChanges(',
    };
    expect(documentedSteps('The write path')).toEqual(Object.keys(calls));
    const source = read('src/core/write.ts');
    // `finish` (steps 3–7) is written before `write` (steps 1–2): each part in its own order
    const [precondition, work, ...finish] = positions(source, Object.values(calls));
    expect([precondition, work, ...finish].every((at) => at >= 0)).toBe(true);
    expect(precondition).toBeLessThan(work);
    expect(finish).toEqual([...finish].sort((a, b) => a - b));
    expect(source.indexOf('await w.finish()')).toBeGreaterThan(work);
  });

  it('names the list pipeline steps in the order core/lists.ts takes them', () => {
    const calls: Record<string, string> = {
      filters: 'source.filters(',
      page: 'source.page(',
      representation: 'represent(reader',
    };
    expect(documentedSteps('The read path', ' {3}')).toEqual(Object.keys(calls));
    const found = positions(read('src/core/lists.ts'), Object.values(calls));
    expect(found.every((at) => at >= 0)).toBe(true);
    expect(found).toEqual([...found].sort((a, b) => a - b));
  });
});

/**
 * The project's documents are its own: README's code layout names files that exist, nothing cites a document outside
 * the repository, and every citation of docs/compatibility.md sections and docs/decisions.md records resolves.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, lstatSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const ROOT = join(__dirname, '..', '..');
const read = (file: string): string => readFileSync(join(ROOT, file), 'utf8');

/** Tracked text files, without dependencies, generated output and the lock file. */
function trackedFiles(): string[] {
  const files = execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, encoding: 'utf8' }).split('\0');
  return files.filter(
    (file) =>
      file !== '' &&
      file !== 'node_modules' &&
      !file.startsWith('node_modules/') &&
      !file.startsWith('generated/') &&
      file !== 'package-lock.json' &&
      existsSync(join(ROOT, file)) &&
      lstatSync(join(ROOT, file)).isFile() &&
      !read(file).includes('\0'),
  );
}

/** Backticked tokens of a markdown table cell. */
const codeSpans = (cell: string): string[] => [...cell.matchAll(/`([^`]+)`/g)].map((m) => m[1]);

/** Repository paths named in README's "Code layout" table: every one in the path column, and in the other column
 * those that start at the repository root (`src/…`, not `webhooks/`). */
function layoutPaths(): string[] {
  const readme = read('README.md');
  const start = readme.indexOf('### Code layout');
  expect(start).toBeGreaterThanOrEqual(0);
  const end = readme.indexOf('\n## ', start);
  const rows = readme
    .slice(start, end < 0 ? undefined : end)
    .split('\n')
    .filter((line) => line.startsWith('|') && !/^\|\s*-/.test(line) && !/^\|\s*path\s*\|/.test(line));
  const roots = new Set(trackedFiles().map((file) => file.split('/')[0]));
  const paths: string[] = [];
  for (const row of rows) {
    const [first, ...rest] = row.split('|').slice(1, -1);
    paths.push(...codeSpans(first));
    for (const token of rest.flatMap(codeSpans))
      if (roots.has(token.split('/')[0]) && token.includes('/')) paths.push(token);
  }
  return paths;
}

/** The fixed part of a path with `<…>` placeholders (`src/resources/<resource>/` → `src/resources/`). */
const fixedPrefix = (path: string): string => (path.includes('<') ? path.slice(0, path.indexOf('<')) : path);

/** Section numbers of the headings of docs/compatibility.md: `## 2. Errors` → 2, `#### 1.4a …` → 1.4a. */
function compatibilitySections(): Set<string> {
  const numbers = read('docs/compatibility.md')
    .split('\n')
    .map((line) => /^#{2,4}\s+(\d+(?:\.\d+)*[a-z]?)\.?\s/.exec(line)?.[1])
    .filter((n): n is string => n !== undefined);
  return new Set(numbers);
}

/** Anchors (`<a id="d12">`) and heading texts of docs/decisions.md. */
function decisionTargets(): { anchors: Set<string>; headings: string[] } {
  const text = read('docs/decisions.md');
  const anchors = new Set([...text.matchAll(/<a id="([^"]+)"><\/a>/g)].map((m) => m[1].toLowerCase()));
  const headings = text
    .split('\n')
    .filter((line) => /^#{1,4}\s/.test(line))
    .map((line) => line.replace(/<a id="[^"]+"><\/a>/g, '').toLowerCase());
  return { anchors, headings };
}

const SECTION = String.raw`\d+(?:\.\d+)*[a-z]?`;
/** `compatibility.md §2.3, §3, §4.1–4.5; …`: the run of section references after the document's name. */
const COMPATIBILITY_CITATION = new RegExp(
  String.raw`compatibility\.md((?:[\s,;]*(?:and\s+)?§\s?${SECTION}(?:\s*[–-]\s*§?${SECTION})?)+)`,
  'g',
);

describe('the project documents', () => {
  it("README's code layout names only paths that exist", () => {
    const paths = layoutPaths();
    expect(paths.length).toBeGreaterThan(10);
    const missing = paths.filter((path) => !existsSync(join(ROOT, fixedPrefix(path))));
    expect(missing).toEqual([]);
  });

  it('no tracked file cites a document outside the repository', () => {
    // built from parts, so that this file does not match itself
    const outside = [
      new RegExp(`\\.\\./${'shared'}`),
      new RegExp(`${'shared'}/reference`),
      new RegExp(`\\b${'DECI'}SIONS\\b`), // the old file name, with or without `.md`
      new RegExp(`${'tec'}-compat`),
    ];
    const offenders: string[] = [];
    for (const file of trackedFiles()) {
      read(file)
        .split('\n')
        .forEach((line, index) => {
          for (const pattern of outside) {
            const match = pattern.exec(line);
            if (match) offenders.push(`${file}:${index + 1}: ${match[0]}`);
          }
        });
    }
    expect(offenders).toEqual([]);
  });

  it('every cited section of docs/compatibility.md exists', () => {
    const sections = compatibilitySections();
    expect(sections.has('4.3')).toBe(true);
    const unknown: string[] = [];
    for (const file of trackedFiles()) {
      for (const citation of read(file).matchAll(COMPATIBILITY_CITATION)) {
        for (const number of citation[1].match(new RegExp(SECTION, 'g')) ?? []) {
          if (!sections.has(number)) unknown.push(`${file}: §${number}`);
        }
      }
    }
    expect(unknown).toEqual([]);
  });

  it('every cited record of docs/decisions.md exists', () => {
    const { anchors, headings } = decisionTargets();
    expect(anchors.has('d1')).toBe(true);
    const unknown: string[] = [];
    for (const file of trackedFiles()) {
      const text = read(file);
      for (const [, anchor] of text.matchAll(/decisions\.md#([\w-]+)/g)) {
        if (!anchors.has(anchor.toLowerCase())) unknown.push(`${file}: #${anchor}`);
      }
      for (const [, id] of text.matchAll(/decisions\.md[,:]?\s*\(?(D\d+)\b/g)) {
        if (!anchors.has(id.toLowerCase())) unknown.push(`${file}: ${id}`);
      }
      for (const [, title] of text.matchAll(/decisions\.md,?\s*"([^"]+)"/g)) {
        if (!headings.some((heading) => heading.includes(title.toLowerCase()))) unknown.push(`${file}: "${title}"`);
      }
    }
    expect(unknown).toEqual([]);
  });
});

/**
 * Series rows are written one way: every event shows its series (`recurrence`), so a write of `event_series` or
 * `series_occurrences` must name the events whose answers it changes, and only the functions of
 * src/resources/series/repository.ts that take the kernel's `Write` (and announce through it) may write them.
 * A new write elsewhere, or one there that takes a bare transaction, fails here before it can go unannounced.
 */
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
const REPOSITORY = 'src/resources/series/repository.ts';
const TABLES = /\b(event_series|series_occurrences)\b/g;
/** A query-builder write in the statement that names a series table, or SQL that writes the table it names. */
const BUILDER_WRITE = /\.(insert|update|delete|del|increment|decrement|truncate|merge)\(/;
const SQL_WRITE = /\b(update|insert\s+into|delete\s+from)\s+$/i;

function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(file);
    return entry.name.endsWith('.ts') ? [file] : [];
  });
}

/** The statements of `source` that write a series table (each from the table's name to the statement's end). */
function seriesWrites(source: string): string[] {
  return [...source.matchAll(TABLES)].flatMap((match) => {
    const statement = source.slice(match.index, source.indexOf(';', match.index));
    const before = source.slice(Math.max(0, match.index - 20), match.index);
    return BUILDER_WRITE.test(statement) || SQL_WRITE.test(before) ? [statement] : [];
  });
}

/** The top-level functions of a file: name, parameter list and body. */
function functionsOf(source: string): Array<{ name: string; parameters: string; body: string }> {
  const starts = [...source.matchAll(/^(?:export )?(?:async )?function (\w+)\(([\s\S]*?)\)(?::[^{]*)?\{/gm)];
  return starts.map((start, i) => ({
    name: start[1],
    parameters: start[2],
    body: source.slice(start.index, starts[i + 1]?.index ?? source.length),
  }));
}

describe('series rows are written only through the announcing functions', () => {
  it('no file but the series repository writes them (migrations aside: they run before any record exists)', () => {
    const offenders = sourceFiles('src')
      .filter((file) => file !== REPOSITORY && !file.startsWith('src/db/migrations/'))
      .filter((file) => seriesWrites(fs.readFileSync(path.join(ROOT, file), 'utf8')).length);
    expect(offenders).toEqual([]);
  });

  it('each function of the repository that writes them takes the write', () => {
    const functions = functionsOf(fs.readFileSync(path.join(ROOT, REPOSITORY), 'utf8'));
    const writing = functions.filter((f) => seriesWrites(f.body).length);
    expect(writing.map((f) => f.name)).toEqual(
      expect.arrayContaining(['saveSeries', 'deleteSeries', 'addMembers', 'setDetached', 'relink']),
    );
    expect(writing.filter((f) => !/\bw: Write\b/.test(f.parameters)).map((f) => f.name)).toEqual([]);
  });

  it('finds a write where one is (the check itself)', () => {
    expect(
      seriesWrites("await trx('series_occurrences').where({ event_id: 1 }).update({ detached: true });"),
    ).toHaveLength(1);
    expect(seriesWrites('await trx.raw(`update event_series set exdates = ?`, [x]);')).toHaveLength(1);
    expect(
      seriesWrites("const rows = await db('series_occurrences').where({ series_id: 1 }).select('event_id');"),
    ).toEqual([]);
  });
});

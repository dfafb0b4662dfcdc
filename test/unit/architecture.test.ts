/**
 * The architecture stays what docs/architecture.md says: dependency-cruiser finds no upward import and no circle
 * (the rules in .dependency-cruiser.cjs), and the floors drawn in the document's diagram are the floors those rules
 * enforce, room by room, with every room of src/ on the drawing. Engine differences stay behind src/db/'s dialect
 * helpers: no file outside src/db/ asks `isPostgres`.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

const ROOT = path.resolve(__dirname, '../..');
// the rules' floors: [name, path pattern], from floor 0 up
const { FLOORS } = require(path.join(ROOT, '.dependency-cruiser.cjs')) as { FLOORS: Array<[string, string]> };

function floorOf(file: string): number {
  return FLOORS.findIndex(([, pattern]) => new RegExp(pattern).test(file));
}

/** Rooms of the diagram by floor: `subgraph F3[…]` … `end`, each node's label a room (or several, comma-separated). */
function drawnRooms(): Map<string, number> {
  const doc = fs.readFileSync(path.join(ROOT, 'docs/architecture.md'), 'utf8');
  const diagram = /```mermaid\n([\s\S]*?)```/.exec(doc)?.[1] ?? '';
  const rooms = new Map<string, number>();
  for (const [, floor, body] of diagram.matchAll(/subgraph F(\d)\[[^\]]*\]\n([\s\S]*?)\n\s*end/g)) {
    for (const [, label] of body.matchAll(/\w+\["([^"]+)"\]/g)) {
      for (const room of label.replace(/&lt;[^&]*&gt;\/?/g, '').split(/,\s*/)) rooms.set(room, Number(floor));
    }
  }
  return rooms;
}

/** Every source file under `dir`, as a path from the root (`src/…`). */
function sourceFiles(dir: string): string[] {
  return fs.readdirSync(path.join(ROOT, dir), { withFileTypes: true }).flatMap((entry) => {
    const file = `${dir}/${entry.name}`;
    if (entry.isDirectory()) return sourceFiles(file);
    return /\.[cm]?[jt]s$/.test(entry.name) ? [file] : [];
  });
}

/** How `source` asks which engine it runs on: calls of `isPostgres(`, and imports naming `isPostgres`. */
function engineQuestions(source: string): string[] {
  const calls = [...source.matchAll(/\bisPostgres\s*\(/g)].map(() => 'calls isPostgres(');
  const imports = [...source.matchAll(/\bimport\s+(?:type\s+)?\{([^}]*)\}\s*from/g)]
    .filter(([, names]) => /\bisPostgres\b/.test(names))
    .map(() => 'imports isPostgres');
  return [...imports, ...calls];
}

describe('architecture', () => {
  it('has no upward import and no circle (dependency-cruiser)', () => {
    const bin = path.join(ROOT, 'node_modules/.bin/depcruise');
    const out = execFileSync(bin, ['src', '--config', '.dependency-cruiser.cjs', '--output-type', 'json'], {
      cwd: ROOT,
      encoding: 'utf8',
      maxBuffer: 64 * 1024 * 1024,
    });
    const { summary } = JSON.parse(out) as { summary: { violations: unknown[]; totalCruised: number } };
    expect(summary.totalCruised).toBeGreaterThan(100);
    expect(summary.violations).toEqual([]);
  });

  it('draws every room of src/ on the floor the rules put it', () => {
    const rooms = drawnRooms();
    expect(rooms.size).toBeGreaterThan(15);
    for (const [room, floor] of rooms) {
      const probe = room.endsWith('/') ? `src/${room}x.ts` : `src/${room}`;
      expect({ room, floor: floorOf(probe) }).toEqual({ room, floor });
    }
    const entries = fs.readdirSync(path.join(ROOT, 'src'), { withFileTypes: true });
    const drawn = [...rooms.keys()].map((room) => room.split('/')[0]);
    for (const { name } of entries)
      expect({ room: name, drawn: drawn.includes(name) }).toEqual({ room: name, drawn: true });
  });

  it('keeps engine differences in src/db/: no file outside it asks isPostgres', () => {
    const probe = "import { isPostgres as pg, toNumber } from '../db/dialect';\nif (dialect.isPostgres (db)) x();";
    expect(engineQuestions(probe)).toEqual(['imports isPostgres', 'calls isPostgres(']);
    const files = sourceFiles('src').filter((file) => !file.startsWith('src/db/'));
    expect(files.length).toBeGreaterThan(100);
    const offenders = files.flatMap((file) =>
      engineQuestions(fs.readFileSync(path.join(ROOT, file), 'utf8')).map((question) => `${file}: ${question}`),
    );
    // a new engine difference belongs in a helper under src/db/dialects/ (docs/architecture.md, floor 1)
    expect(offenders).toEqual([]);
  });
});

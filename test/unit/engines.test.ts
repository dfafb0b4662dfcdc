/**
 * The Node.js versions we claim (docs/decisions.md D87): `engines.node` in package.json, README.md and CONTRIBUTING.md
 * say the same lowest version, and no installed package declares an `engines.node` that excludes it (what makes
 * `npm ci` warn EBADENGINE).
 */
import fs from 'node:fs';
import path from 'node:path';
import semver from 'semver';

const ROOT = path.join(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');
const manifest = JSON.parse(read('package.json')) as { engines: { node: string } };
const lowest = semver.minVersion(manifest.engines.node);

interface LockEntry {
  version?: string;
  dev?: boolean;
  optional?: boolean;
  engines?: { node?: string } | string[];
}

/** Every package the lock file installs, with the `engines.node` its installed manifest declares. */
function installed(): Array<{ name: string; version: string; dev: boolean; node?: string }> {
  const lock = JSON.parse(read('package-lock.json')) as { packages: Record<string, LockEntry> };
  return Object.entries(lock.packages)
    .filter(([at]) => at.startsWith('node_modules/'))
    .flatMap(([at, entry]) => {
      const file = path.join(ROOT, at, 'package.json');
      // a platform's optional package (another CPU, another libc) is not installed here: its lock entry speaks for it
      const own = fs.existsSync(file) ? (JSON.parse(fs.readFileSync(file, 'utf8')) as LockEntry) : entry;
      const engines = own.engines && !Array.isArray(own.engines) ? own.engines : undefined;
      const name = at.slice(at.lastIndexOf('node_modules/') + 'node_modules/'.length);
      return [{ name, version: String(own.version ?? entry.version), dev: Boolean(entry.dev), node: engines?.node }];
    });
}

describe('Node.js versions', () => {
  it('claims a lowest version in package.json engines, and README and CONTRIBUTING.md name the same', () => {
    expect(lowest).not.toBeNull();
    const claim = `Node.js ${semver.major(lowest as semver.SemVer)}.${semver.minor(lowest as semver.SemVer)} or newer`;
    expect(read('README.md')).toContain(claim);
    expect(read('CONTRIBUTING.md')).toContain(claim);
  });

  it('installs no package whose engines.node excludes the lowest version we claim', () => {
    const packages = installed();
    expect(packages.length).toBeGreaterThan(100);
    const excluding = packages
      .filter((p) => p.node && !semver.satisfies(lowest as semver.SemVer, p.node, { includePrerelease: true }))
      .map((p) => `${p.name}@${p.version} (${p.dev ? 'dev' : 'production'}) needs node ${p.node}`);
    expect(excluding).toEqual([]);
  });

  it('runs on a version we claim', () => {
    expect(semver.satisfies(process.version, manifest.engines.node)).toBe(true);
  });
});

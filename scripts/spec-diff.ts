/**
 * The breaking-change gate (docs/decisions.md D85): compares the spec with the one of the last release (the newest
 * `v*` git tag reachable from HEAD) and fails on a change that would break a client generated from the released
 * spec, unless the spec's `info.version` raised the major number and `CHANGELOG.md` lists each break under
 * `### Breaking` in that version's section.
 *
 *   npx tsx scripts/spec-diff.ts [--base <git ref>] [--root <repository>]   (run by `npm run lint:spec`)
 *
 * Exit status 0 when it passes (or finds no release tag to compare with), 1 on a break not accepted, 2 when it cannot
 * run (an unreadable spec, a tag without `openapi/`).
 *
 * Both documents are bundled by Redocly's openapi-core (one document, internal `$ref`s only), then walked with each
 * `$ref` followed, so the comparison sees the dereferenced schemas while still knowing which named schema a change
 * lies in. `breakingChanges` (the rules) and `judge` (the version and changelog policy) are pure; the CLI does the git
 * and file work around them.
 */
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { bundle, loadConfig } from '@redocly/openapi-core';
import semver from 'semver';

type Json = Record<string, unknown>;
type Direction = 'request' | 'response';

/** One breaking change as found in one operation. */
export interface Break {
  /** `GET /events/{id}`, or `WEBHOOK change` for a webhook */
  operation: string;
  /** the named schema (`components/schemas/<name>`) the change lies in, when it lies in one */
  component?: string;
  /** where, inside the component when there is one, otherwise inside the operation */
  where: string;
  message: string;
}

/** Breaks of the same change (one place of one named schema, or one place of one operation), with every operation. */
export interface Finding {
  component?: string;
  where: string;
  message: string;
  operations: string[];
}

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

function isObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function code(text: string): string {
  return `\`${text}\``;
}

interface Ctx {
  component?: string;
  /** dotted place inside the component (or inside the operation's body or parameter when no component) */
  local: string;
}

function child(ctx: Ctx, step: string): Ctx {
  return {
    component: ctx.component,
    local: ctx.local ? `${ctx.local}${step.startsWith('[') ? '' : '.'}${step}` : step,
  };
}

/** One side of the comparison: a bundled document whose internal `$ref`s are followed on demand. */
class Side {
  constructor(readonly root: Json) {}

  /** The node a `$ref` chain ends at (siblings of `$ref` kept), the schema name it passed last, and its ref. */
  resolve(node: unknown, ctx: Ctx): { node: Json; ctx: Ctx; ref?: string } {
    let current: unknown = node;
    let ref: string | undefined;
    let next = ctx;
    for (let hops = 0; isObject(current) && typeof current.$ref === 'string'; hops += 1) {
      if (hops > 64) throw new Error(`$ref loop at ${ref}`);
      ref = current.$ref as string;
      if (!ref.startsWith('#/')) throw new Error(`external $ref ${ref}: bundle the document first`);
      const { $ref: _ref, ...siblings } = current;
      const keys = ref
        .slice(2)
        .split('/')
        .map((key) => decodeURIComponent(key).replace(/~1/g, '/').replace(/~0/g, '~'));
      const target = keys.reduce<unknown>((at, key) => (isObject(at) ? at[key] : undefined), this.root);
      if (target === undefined) throw new Error(`unresolved $ref ${ref}`);
      if (keys[0] === 'components' && keys[1] === 'schemas' && keys.length === 3)
        next = { component: keys[2], local: '' };
      current = Object.keys(siblings).length && isObject(target) ? { ...target, ...siblings } : target;
    }
    return { node: isObject(current) ? current : {}, ctx: next, ref };
  }
}

/** A schema with its `allOf` members merged: what a generated type of it is made of. */
interface Flat {
  /** JSON types it admits; undefined: any */
  types?: Set<string>;
  /** the values it admits (`enum`, `const`); undefined: any of its types */
  values?: unknown[];
  properties: Map<string, { schema: unknown; ctx: Ctx }>;
  required: Set<string>;
  items?: { schema: unknown; ctx: Ctx };
  additional?: { schema: unknown; ctx: Ctx };
  alternatives: { schema: unknown; ctx: Ctx }[];
  refs: string[];
  /** where the schema itself is (inside the named schema its first `$ref` led to, if any) */
  ctx: Ctx;
}

function jsonType(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'array';
  if (typeof value === 'number') return Number.isInteger(value) ? 'integer' : 'number';
  return typeof value;
}

function flatten(side: Side, schema: unknown, ctx: Ctx, flat?: Flat, depth = 0): Flat {
  const resolved = side.resolve(schema, ctx);
  const at = resolved.ctx;
  const into: Flat = flat ?? { properties: new Map(), required: new Set(), alternatives: [], refs: [], ctx: at };
  if (depth > 32) return into;
  const node = resolved.node;
  if (resolved.ref) into.refs.push(resolved.ref);
  if (node.type !== undefined) {
    const types = new Set(Array.isArray(node.type) ? (node.type as string[]) : [node.type as string]);
    into.types = into.types ? new Set([...into.types].filter((t) => types.has(t))) : types;
  }
  const values = node.const !== undefined ? [node.const] : Array.isArray(node.enum) ? node.enum : undefined;
  if (values) {
    const known = into.values?.map((v) => JSON.stringify(v));
    into.values = known ? values.filter((v) => known.includes(JSON.stringify(v))) : values;
    if (node.type === undefined && !into.types) into.types = new Set(values.map(jsonType));
  }
  if (isObject(node.properties)) {
    for (const [name, property] of Object.entries(node.properties)) {
      if (!into.properties.has(name)) into.properties.set(name, { schema: property, ctx: child(at, name) });
    }
  }
  if (Array.isArray(node.required)) for (const name of node.required) into.required.add(String(name));
  if (node.items !== undefined && typeof node.items !== 'boolean')
    into.items ??= { schema: node.items, ctx: child(at, '[]') };
  if (isObject(node.additionalProperties))
    into.additional ??= { schema: node.additionalProperties, ctx: child(at, '{}') };
  for (const keyword of ['oneOf', 'anyOf']) {
    const list = node[keyword];
    if (!Array.isArray(list)) continue;
    for (const [i, s] of list.entries()) into.alternatives.push({ schema: s, ctx: child(at, `[${keyword} ${i}]`) });
  }
  if (Array.isArray(node.allOf)) for (const member of node.allOf) flatten(side, member, at, into, depth + 1);
  return into;
}

/** Does a schema of these types admit a value of type `type`? */
function admits(types: Set<string> | undefined, type: string): boolean {
  return !types || types.has(type) || (type === 'integer' && types.has('number'));
}

function describeTypes(types: Set<string> | undefined): string {
  return types ? [...types].sort().join(' | ') : 'any';
}

class Comparison {
  readonly breaks: Break[] = [];
  private operation = '';
  private stack = new Set<string>();

  constructor(
    private readonly before: Side,
    private readonly after: Side,
  ) {}

  /** A break at `ctx` (or at its field `field`); `label` says where when no named schema holds it. */
  private report(ctx: Ctx, message: string, label: string, field?: string): void {
    const where = ctx.component
      ? [ctx.component, ctx.local, field].filter(Boolean).join('.')
      : field
        ? `${label} → ${field}`
        : label;
    this.breaks.push({ operation: this.operation, component: ctx.component, where, message });
  }

  /** Compares a schema as it travels in one direction; `label` names the place for changes outside named schemas. */
  schema(old: unknown, now: unknown, ctx: Ctx, direction: Direction, label: string): void {
    const a = flatten(this.before, old, ctx);
    const b = flatten(this.after, now, ctx);
    const key = `${a.refs.join(',')}|${b.refs.join(',')}|${direction}`;
    if ((a.refs.length || b.refs.length) && this.stack.has(key)) return; // a recursive schema met again
    this.stack.add(key);
    try {
      this.compare(a, b, b.ctx, direction, label);
    } finally {
      this.stack.delete(key);
    }
  }

  private compare(a: Flat, b: Flat, ctx: Ctx, direction: Direction, label: string): void {
    const sent = direction === 'request';
    // types: a client's request must stay valid (no type taken away); a response must stay readable (none added)
    const lost = sent
      ? a.types
        ? [...a.types].filter((t) => !admits(b.types, t))
        : b.types
          ? ['any']
          : []
      : b.types
        ? [...b.types].filter((t) => !admits(a.types, t))
        : a.types
          ? ['any']
          : [];
    if (lost.length) {
      this.report(ctx, `type changed from ${describeTypes(a.types)} to ${describeTypes(b.types)}`, label);
      return;
    }
    // enums: a value a client may send must still be accepted; responses may grow or shrink their enums
    if (sent && b.values) {
      const kept = new Set(b.values.map((v) => JSON.stringify(v)));
      const dropped = a.values ? a.values.filter((v) => !kept.has(JSON.stringify(v))) : undefined;
      if (!a.values) this.report(ctx, `now limited to ${b.values.map((v) => JSON.stringify(v)).join(', ')}`, label);
      else if (dropped?.length)
        this.report(ctx, `enum narrowed: ${dropped.map((v) => JSON.stringify(v)).join(', ')} no longer allowed`, label);
    }
    for (const [name, property] of a.properties) {
      const now = b.properties.get(name);
      if (!now) {
        this.report(property.ctx, 'field removed', `${label} → ${name}`); // where the field was declared
        continue;
      }
      if (!sent && a.required.has(name) && !b.required.has(name))
        this.report(ctx, 'field no longer always present', label, name);
      this.schema(property.schema, now.schema, now.ctx, direction, `${label} → ${name}`);
    }
    if (sent) {
      for (const name of b.required) {
        if (!a.required.has(name)) this.report(ctx, 'field now required', label, name);
      }
    }
    if (a.items && b.items) this.schema(a.items.schema, b.items.schema, b.items.ctx, direction, `${label}[]`);
    if (a.additional && b.additional)
      this.schema(a.additional.schema, b.additional.schema, b.additional.ctx, direction, `${label}{}`);
    if (a.alternatives.length === b.alternatives.length) {
      a.alternatives.forEach((alt, i) => {
        const other = b.alternatives[i];
        this.schema(alt.schema, other.schema, other.ctx, direction, `${label}[${i}]`);
      });
    } else if (sent ? b.alternatives.length < a.alternatives.length : b.alternatives.length > a.alternatives.length) {
      this.report(ctx, `alternatives changed from ${a.alternatives.length} to ${b.alternatives.length}`, label);
    }
  }

  private parameters(pathItem: Json, op: Json, side: Side): Map<string, Json> {
    const byKey = new Map<string, Json>();
    for (const list of [pathItem.parameters, op.parameters]) {
      if (!Array.isArray(list)) continue;
      for (const raw of list) {
        const param = side.resolve(raw, { local: '' }).node;
        byKey.set(`${param.in} parameter ${code(String(param.name))}`, param);
      }
    }
    return byKey;
  }

  private body(node: unknown, side: Side): Json | undefined {
    return node === undefined ? undefined : side.resolve(node, { local: '' }).node;
  }

  private content(old: Json, now: Json, direction: Direction, label: string): void {
    const before = isObject(old.content) ? old.content : {};
    const after = isObject(now.content) ? now.content : {};
    for (const [type, media] of Object.entries(before)) {
      const other = after[type];
      const place = `${label} (${type})`;
      if (!isObject(other)) {
        this.report({ local: '' }, 'media type removed', place);
        continue;
      }
      if (isObject(media) && media.schema !== undefined && other.schema !== undefined)
        this.schema(media.schema, other.schema, { local: '' }, direction, place);
    }
  }

  /** An operation (`pathItem[method]`) on both sides; webhooks carry what we send, so their body is a response. */
  operationPair(name: string, oldItem: Json, newItem: Json, method: string, webhook: boolean): void {
    this.operation = name;
    const old = oldItem[method] as Json;
    const now = newItem[method] as Json;
    const oldParams = this.parameters(oldItem, old, this.before);
    const newParams = this.parameters(newItem, now, this.after);
    for (const [key, param] of oldParams) {
      const other = newParams.get(key);
      if (!other) {
        this.report({ local: '' }, 'removed (or renamed)', key);
        continue;
      }
      if (!param.required && other.required) this.report({ local: '' }, 'now required', key);
      this.schema(param.schema, other.schema, { local: '' }, 'request', key);
    }
    for (const [key, param] of newParams) {
      if (!oldParams.has(key) && param.required) this.report({ local: '' }, 'new, and required', key);
    }
    const oldBody = this.body(old.requestBody, this.before);
    const newBody = this.body(now.requestBody, this.after);
    const bodyDirection: Direction = webhook ? 'response' : 'request';
    if (oldBody && !newBody) this.report({ local: '' }, 'removed', 'request body');
    if (newBody?.required && !oldBody?.required && !webhook) this.report({ local: '' }, 'now required', 'request body');
    if (oldBody && newBody) this.content(oldBody, newBody, bodyDirection, 'request body');
    const oldResponses = isObject(old.responses) ? old.responses : {};
    const newResponses = isObject(now.responses) ? now.responses : {};
    for (const [status, raw] of Object.entries(oldResponses)) {
      const label = `response ${status}`;
      if (!(status in newResponses)) {
        if (status.startsWith('2')) this.report({ local: '' }, 'removed', label);
        continue;
      }
      const a = this.before.resolve(raw, { local: '' }).node;
      const b = this.after.resolve(newResponses[status], { local: '' }).node;
      this.content(a, b, 'response', label);
    }
  }
}

/** `/events/{id}` and `/events/{event_id}` are one route. */
function route(template: string): string {
  return template.replace(/\{[^}]*\}/g, '{}');
}

/** Every change from `before` to `after` that would break a client generated from `before`. */
export function breakingChanges(before: Json, after: Json): Break[] {
  const comparison = new Comparison(new Side(before), new Side(after));
  const newPaths = new Map<string, [string, Json]>();
  for (const [template, item] of Object.entries(isObject(after.paths) ? after.paths : {}))
    newPaths.set(route(template), [template, isObject(item) ? item : {}]);
  for (const [template, raw] of Object.entries(isObject(before.paths) ? before.paths : {})) {
    const item = isObject(raw) ? raw : {};
    const match = newPaths.get(route(template));
    for (const method of METHODS.filter((m) => isObject(item[m]))) {
      const name = `${method.toUpperCase()} ${template}`;
      if (!match || !isObject(match[1][method])) {
        comparison.breaks.push({ operation: name, where: name, message: 'operation removed' });
        continue;
      }
      comparison.operationPair(name, item, match[1], method, false);
    }
  }
  const newHooks = isObject(after.webhooks) ? after.webhooks : {};
  for (const [hook, raw] of Object.entries(isObject(before.webhooks) ? before.webhooks : {})) {
    const item = isObject(raw) ? raw : {};
    const match = isObject(newHooks[hook]) ? (newHooks[hook] as Json) : {};
    for (const method of METHODS.filter((m) => isObject(item[m]))) {
      const name = `WEBHOOK ${hook}`;
      if (!isObject(match[method])) {
        comparison.breaks.push({ operation: name, where: name, message: 'webhook removed' });
        continue;
      }
      comparison.operationPair(name, item, match, method, true);
    }
  }
  return comparison.breaks;
}

/** Groups the breaks of one change met through several operations (a named schema used by many). */
export function group(breaks: Break[]): Finding[] {
  const findings = new Map<string, Finding>();
  for (const found of breaks) {
    const key = found.component
      ? `${found.component}|${found.where}|${found.message}`
      : `${found.operation}|${found.where}|${found.message}`;
    const finding = findings.get(key) ?? {
      component: found.component,
      where: found.where,
      message: found.message,
      operations: [],
    };
    if (!finding.operations.includes(found.operation)) finding.operations.push(found.operation);
    findings.set(key, finding);
  }
  return [...findings.values()];
}

/**
 * The code spans (`…`) of the `### Breaking` part of `## <version>` (or `## [<version>]`, text may follow), HTML
 * comments left out; undefined if there is no such section.
 */
export function changelogBreaking(changelog: string, version: string): Set<string> | undefined {
  const lines = changelog.replace(/<!--[\s\S]*?-->/g, '').split(/\r?\n/);
  const escaped = version.replace(/[.+]/g, '\\$&');
  const heading = new RegExp(`^##\\s+\\[?v?${escaped}\\]?(?:\\s|$)`);
  const start = lines.findIndex((line) => heading.test(line));
  if (start < 0) return undefined;
  const spans = new Set<string>();
  let inBreaking = false;
  for (const line of lines.slice(start + 1)) {
    if (/^##\s/.test(line)) break;
    if (/^###\s/.test(line)) {
      inBreaking = /^###\s+Breaking\b/i.test(line);
      continue;
    }
    if (inBreaking) for (const match of line.matchAll(/`([^`]+)`/g)) spans.add(match[1].trim());
  }
  return spans;
}

/** Is this finding named in these code spans (its schema or a place in it, or every operation or path it is in)? */
export function listed(finding: Finding, spans: Set<string>): boolean {
  // `Event`, `Event.venue` and `Event.venue.city` all name a break at `Event.venue.city`
  const steps = finding.where.split('.');
  if (finding.component && steps.some((_, i) => spans.has(steps.slice(0, i + 1).join('.')))) return true;
  return finding.operations.every((op) => spans.has(op) || spans.has(op.replace(/^[A-Z]+ /, '')));
}

/** One line per finding; its first code span is a name the changelog can list it by. */
export function describe(finding: Finding): string {
  const ops = finding.operations;
  if (finding.component) {
    const list = ops.length > 3 ? `${ops.slice(0, 3).join(', ')} and ${ops.length - 3} more` : ops.join(', ');
    return `${code(finding.where)} (in ${list}): ${finding.message}`;
  }
  const [op] = ops;
  return finding.where === op ? `${code(op)}: ${finding.message}` : `${code(op)}: ${finding.where}: ${finding.message}`;
}

export interface Verdict {
  ok: boolean;
  lines: string[];
}

/**
 * The policy: no break passes unless the major number was raised since the release and the changelog's section for
 * this version lists each one under `### Breaking` (by a code span naming its operation, its path, or its schema).
 */
export function judge(opts: {
  findings: Finding[];
  release: string;
  version: string;
  packageVersion?: string;
  changelog?: string;
}): Verdict {
  const { findings, release, version } = opts;
  const lines: string[] = [];
  if (!semver.valid(version)) return { ok: false, lines: [`info.version ${JSON.stringify(version)} is not semver`] };
  if (opts.packageVersion !== undefined && opts.packageVersion !== version)
    return {
      ok: false,
      lines: [`info.version ${version} differs from package.json's version ${opts.packageVersion}: make them one`],
    };
  if (semver.lt(version, release))
    return { ok: false, lines: [`info.version ${version} is lower than the last release ${release}`] };
  if (!findings.length) return { ok: true, lines: [`no breaking change since ${release}`] };
  const count = `${findings.length} breaking change${findings.length === 1 ? '' : 's'} since ${release}`;
  if (semver.major(version) <= semver.major(release)) {
    lines.push(`${count}, and info.version ${version} keeps major ${semver.major(release)}:`);
    for (const finding of findings) lines.push(`  ${describe(finding)}`);
    lines.push(
      `Undo them, or raise the major version (openapi/openapi.yaml info.version and package.json) and list each ` +
        'under "### Breaking" in its CHANGELOG.md section (the lines above, as bullets, will do).',
    );
    return { ok: false, lines };
  }
  const spans = opts.changelog === undefined ? undefined : changelogBreaking(opts.changelog, version);
  if (!spans) {
    lines.push(`${count}; CHANGELOG.md has no "## ${version}" section: add one with a "### Breaking" part listing:`);
    for (const finding of findings) lines.push(`  ${describe(finding)}`);
    return { ok: false, lines };
  }
  const missing = findings.filter((finding) => !listed(finding, spans));
  if (missing.length) {
    lines.push(`${count}; ${missing.length} not listed under "### Breaking" in CHANGELOG.md's ${version} section:`);
    for (const finding of missing) lines.push(`  ${describe(finding)}`);
    lines.push(
      'Name each by a code span: its operation (`GET /events`), its path (`/events`) or its schema (`Event`, ' +
        '`Event.cost`); the lines above, as bullets, will do.',
    );
    return { ok: false, lines };
  }
  lines.push(`${count}, accepted: major version ${semver.major(version)} and listed in CHANGELOG.md:`);
  for (const finding of findings) lines.push(`  ${describe(finding)}`);
  return { ok: true, lines };
}

/** One document from a spec split over files: Redocly's bundle, `$ref`s made internal. */
export async function loadBundled(file: string): Promise<Json> {
  const config = await loadConfig({});
  const result = await bundle({ ref: file, config });
  return result.bundle.parsed as Json;
}

function git(root: string, args: string[]): string {
  return execFileSync('git', args, { cwd: root, encoding: 'utf8', stdio: ['ignore', 'pipe', 'pipe'] }).trim();
}

/** The last release: the newest `v*` tag reachable from HEAD; undefined if none is (no tags, or a shallow clone). */
export function lastRelease(root: string): string | undefined {
  try {
    return git(root, ['describe', '--tags', '--abbrev=0', '--match', 'v*']);
  } catch {
    return undefined;
  }
}

export async function run(root: string, base?: string): Promise<Verdict> {
  const tag = base ?? lastRelease(root);
  if (!tag) {
    const shallow = (() => {
      try {
        return git(root, ['rev-parse', '--is-shallow-repository']) === 'true';
      } catch {
        return false;
      }
    })();
    return {
      ok: true,
      lines: [
        `no release tag (v*) reachable from HEAD${shallow ? ' (a shallow clone)' : ''}: nothing to compare with, ` +
          'the breaking-change gate passes without a check',
      ],
    };
  }
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spec-release-'));
  try {
    const archive = execFileSync('git', ['archive', '--format=tar', tag, 'openapi'], {
      cwd: root,
      maxBuffer: 1 << 28,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    execFileSync('tar', ['-x', '-C', dir], { input: archive });
    const before = await loadBundled(path.join(dir, 'openapi', 'openapi.yaml'));
    // a release tag names its version; another base (`--base main`) is the version its spec says
    const release =
      semver.clean(tag.replace(/^v/, '')) ?? semver.valid(String((before.info as Json | undefined)?.version ?? ''));
    if (!release) return { ok: false, lines: [`neither ${tag} nor the info.version of its spec is a semver version`] };
    const after = await loadBundled(path.join(root, 'openapi', 'openapi.yaml'));
    const changelogFile = path.join(root, 'CHANGELOG.md');
    const verdict = judge({
      findings: group(breakingChanges(before, after)),
      release,
      version: String((after.info as Json | undefined)?.version ?? ''),
      packageVersion: JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')).version,
      changelog: fs.existsSync(changelogFile) ? fs.readFileSync(changelogFile, 'utf8') : undefined,
    });
    return { ok: verdict.ok, lines: [`spec against ${tag}:`, ...verdict.lines] };
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

if (require.main === module) {
  const args = process.argv.slice(2);
  const baseAt = args.indexOf('--base');
  const rootAt = args.indexOf('--root');
  const root = rootAt >= 0 ? path.resolve(args[rootAt + 1]) : path.resolve(__dirname, '..');
  run(root, baseAt >= 0 ? args[baseAt + 1] : undefined)
    .then((verdict) => {
      (verdict.ok ? console.log : console.error)(verdict.lines.join('\n'));
      process.exitCode = verdict.ok ? 0 : 1;
    })
    .catch((err: unknown) => {
      console.error(`spec-diff: ${err instanceof Error ? err.message : String(err)}`);
      process.exitCode = 2;
    });
}

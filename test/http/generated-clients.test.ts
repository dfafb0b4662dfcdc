/**
 * Clients generated from the served `/doc` as a user generates them, by two independent generators with their
 * default settings: openapi-typescript (types, used with openapi-fetch; run inside this repository, where it reads
 * our `.redocly.yaml`) and @hey-api/openapi-ts (types, an SDK and its own fetch client). `tsc --strict` compiles
 * both with test/fixtures/generated-clients/: creates with their required fields compile, creates of an event, a
 * venue and an organizer without them do not (`@ts-expect-error`). Then an event's round trip (create, read,
 * update, delete) goes through the hey-api SDK against the running service, on every engine. Offline: the
 * generators read the document from the service on 127.0.0.1.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ENGINES } from '../support/engines';
import { NS, startService, type TestService } from '../support/app';

const ROOT = path.resolve(__dirname, '..', '..');
const BIN = path.join(ROOT, 'node_modules', '.bin');
const FIXTURES = path.join(ROOT, 'test', 'fixtures', 'generated-clients');

/** Runs a command to its end without blocking the service this process serves; rejects with its output. */
function run(command: string, args: string[], cwd: string, env: Record<string, string> = {}): Promise<string> {
  return new Promise((resolve, reject) => {
    execFile(command, args, { cwd, env: { ...process.env, NO_COLOR: '1', ...env } }, (error, stdout, stderr) => {
      if (error) reject(new Error(`${path.basename(command)} ${args.join(' ')} failed:\n${stdout}${stderr}`));
      else resolve(stdout);
    });
  });
}

const baseUrl = (service: TestService) =>
  `http://127.0.0.1:${(service.server.address() as { port: number }).port}${NS}`;

describe('clients generated from the served /doc', () => {
  let service: TestService;
  let dir: string;

  beforeAll(async () => {
    service = await startService(ENGINES[0]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'generated-clients-'));
    fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(dir, 'node_modules'), 'dir');
    for (const name of fs.readdirSync(FIXTURES)) fs.copyFileSync(path.join(FIXTURES, name), path.join(dir, name));
    const doc = `${baseUrl(service)}/doc`;
    // a .ts file rather than .d.ts, so that the compile below checks it (skipLibCheck skips declaration files)
    const schema = path.join(dir, 'openapi-typescript', 'schema.ts');
    await Promise.all([
      // inside the repository, as the user ran it: it lints with our .redocly.yaml and must exit 0
      run(path.join(BIN, 'openapi-typescript'), [doc, '-o', schema], ROOT, { REDOCLY_TELEMETRY: 'off' }),
      run(path.join(BIN, 'openapi-ts'), ['-i', doc, '-o', path.join(dir, 'hey-api')], dir),
    ]);
  });
  afterAll(async () => {
    await service?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  it('compiles with tsc --strict, and refuses creates without their required fields', async () => {
    fs.writeFileSync(
      path.join(dir, 'tsconfig.json'),
      JSON.stringify({
        compilerOptions: {
          target: 'ES2022',
          module: 'ESNext',
          moduleResolution: 'Bundler',
          lib: ['ES2022', 'DOM'],
          types: ['node'],
          strict: true,
          noEmit: true,
          skipLibCheck: true,
        },
        include: ['*.ts', 'openapi-typescript', 'hey-api'],
      }),
    );
    // an unused `@ts-expect-error` (a refused create that compiles) fails this run, as any other error does
    await expect(run(path.join(BIN, 'tsc'), ['-p', 'tsconfig.json', '--strict'], dir)).resolves.toBe('');
    const refused = fs.readFileSync(path.join(dir, 'refused.ts'), 'utf8');
    expect(refused.match(/\/\/ @ts-expect-error/g)).toHaveLength(8);
  });

  describe.each(ENGINES)('on %s', (engine) => {
    let target: TestService;
    beforeAll(async () => {
      target = engine === ENGINES[0] ? service : await startService(engine);
    });
    afterAll(async () => {
      if (target !== service) await target.close();
    });

    it('round-trips an event through the hey-api SDK: create, read, update, delete', async () => {
      const output = await run(path.join(BIN, 'tsx'), ['round-trip.ts'], dir, {
        BASE_URL: baseUrl(target),
        CREDENTIALS: target.as('editor').join(':'),
      });
      expect(JSON.parse(output)).toEqual({
        createdStatus: 201,
        createdTitle: 'River clean-up',
        readId: expect.any(Number),
        readStart: '2027-07-01 10:00:00',
        updatedTitle: 'River clean-up, second round',
        rereadTitle: 'River clean-up, second round',
        deletedStatus: 200,
        goneStatus: 404,
        goneCode: 'rest-event-not-found',
      });
    });
  });
});

/**
 * The `/doc` a running service serves passes the linters users run with their default rules:
 * Redocly `recommended` (no configuration of ours) and Spectral `spectral:oas`, with no ignore file and no warning
 * (scripts/lint-spec.ts, which `npm run lint:spec` runs on the bundles). The document does not depend on the
 * database, so one engine serves it.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { ENGINES } from '../support/engines';
import { http, NS, startService, type TestService } from '../support/app';
import { lintAsUsers } from '../../scripts/lint-spec';

describe('the served /doc with the default rules of Redocly and Spectral', () => {
  let service: TestService;
  let dir: string;
  beforeAll(async () => {
    service = await startService(ENGINES[0]);
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'served-doc-'));
  });
  afterAll(async () => {
    await service?.close();
    if (dir) fs.rmSync(dir, { recursive: true, force: true });
  });

  // every language's bundle is linted by `npm run lint:spec`; here the served form of three (Latin, German
  // compounds, Japanese), the languages differing only in text, which both linters only require to be there
  it('reports no problem, in English, German and Japanese', async () => {
    const files: string[] = [];
    for (const language of ['en', 'de', 'ja']) {
      const res = await http(service).get(`${NS}/doc`).query({ i18n_language: language });
      expect(res.status).toBe(200);
      expect(res.body.servers[0].url).not.toMatch(/\/$/);
      const file = path.join(dir, `doc.${language}.json`);
      fs.writeFileSync(file, JSON.stringify(res.body));
      files.push(file);
    }
    expect(await lintAsUsers(files)).toEqual([]);
  });

  it('would report what the linters find: an ambiguous path, an operation without description', async () => {
    const doc = (await http(service).get(`${NS}/doc`)).body;
    doc.paths['/events/{id}/ical'] = doc.paths['/events/ical/{id}'];
    delete doc.paths['/events/ical/{id}'];
    delete doc.paths['/webhooks'].get.description;
    const file = path.join(dir, 'broken.json');
    fs.writeFileSync(file, JSON.stringify(doc));
    const problems = await lintAsUsers([file]);
    expect(problems).toEqual([
      expect.stringMatching(/^redocly .*no-ambiguous-paths/),
      expect.stringMatching(/^spectral operation-description broken\.json#paths\.\/webhooks\.get/),
    ]);
  });
});

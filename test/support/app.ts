/** A test service on a fresh database: the real app with response validation on, plus users of every role. */
import fs from 'node:fs';
import type { Server } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import type { Express } from 'express';
import type { OpenAPIV3_1 } from 'openapi-types';
import request from 'supertest';
import { createApp } from '../../src/app';
import { createHttpServer } from '../../src/http/request-classes';
import { loadConfig, type Config } from '../../src/config';
import { migrate } from '../../src/db/migrate';
import { createLogger } from '../../src/logger';
import { loadSpec, type LoadedSpec } from '../../src/http/spec';
import { BUNDLED_SPEC } from '../../src/paths';
import { createThrottle } from '../../src/http/throttle';
import { createUser } from '../../src/users/repository';
import { ROLES, type Role } from '../../src/users/roles';
import { clockStartingAt, setClock } from '../../src/domain/clock';
import { freshDatabase, type Engine, type TestDatabase } from './engines';
import type { Db } from '../../src/db/types';

export const NS = '/calendar/events/v1';
/**
 * The instant every test service starts at (its clock then runs at the real pace): tests build their fixtures
 * from it, never from the wall clock, so they pass at any hour, on any date, in any process time zone.
 */
export const TEST_NOW = '2027-06-15T12:00:00Z';
const PASSWORD = 'correct horse battery staple';

export interface TestService {
  app: Express;
  /** One listening server, so that every response names the same host and port. */
  server: Server;
  database: TestDatabase;
  config: Config;
  /** Basic credentials of a user of each role. */
  users: Record<Role, { id: number; login: string; password: string }>;
  as(role: Role): [string, string];
  close(): Promise<void>;
}

export interface StartOptions {
  /** Runs on the migrated database before the app starts (e.g. loading a dump). */
  prepare?(db: Db): Promise<unknown>;
  /** Create a user of each role (default); without, `users` is empty until the test fills it. */
  createUsers?: boolean;
  /** Changes the loaded spec before the app validates with it (a test's field the spec lacks). */
  spec?(document: OpenAPIV3_1.Document): void;
  /** A short wait for another connection's lock (SQLite then runs on a temporary file): engines.ts. */
  lockWaitMs?: number;
}

export async function startService(
  engine: Engine,
  env: Record<string, string> = {},
  logger = createLogger('silent'),
  options: StartOptions = {},
): Promise<TestService> {
  setClock(clockStartingAt(TEST_NOW));
  const database = await freshDatabase(engine, { lockWaitMs: options.lockWaitMs });
  await migrate(database.db);
  await options.prepare?.(database.db);
  const config = { ...loadConfig({ SITE_TIMEZONE: 'UTC', ...env }) };
  const spec = options.spec ? changedSpec(options.spec) : loadSpec();
  const context = {
    config,
    db: database.db,
    spec,
    throttle: createThrottle(database.db, config, database.schema),
  };
  const app = createApp(context, { logger, validateResponses: true });
  const users = {} as TestService['users'];
  for (const role of options.createUsers === false ? [] : ROLES) {
    const user = await createUser(database.db, `${role}-user`, role, PASSWORD);
    users[role] = { id: user.id, login: user.login, password: PASSWORD };
  }
  const server = await new Promise<Server>((resolve) => {
    const s = createHttpServer(app).listen(0, '127.0.0.1', () => resolve(s));
  });
  return {
    app,
    server,
    database,
    config,
    users,
    as: (role) => [users[role].login, users[role].password],
    async close() {
      await new Promise((resolve) => server.close(resolve));
      await database.drop();
    },
  };
}

/** The spec as `change` leaves it, loaded as the service loads its own (its operations read from it). */
function changedSpec(change: (document: OpenAPIV3_1.Document) => void): LoadedSpec {
  const document = JSON.parse(fs.readFileSync(BUNDLED_SPEC, 'utf8')) as OpenAPIV3_1.Document;
  change(document);
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'spec-'));
  try {
    fs.writeFileSync(path.join(dir, 'openapi.json'), JSON.stringify(document));
    return loadSpec(path.join(dir, 'openapi.json'));
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
}

/** supertest against the service. */
export function http(service: TestService) {
  return request(service.server);
}

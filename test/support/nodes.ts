/**
 * Another node of a test service: its own connection pool, app and listening server on the service's database (as a
 * separate process would have), with the service's configuration or one changed for it.
 */
import type { Server } from 'node:http';
import type { Config } from '../../src/config';
import { createApp } from '../../src/app';
import { createDb } from '../../src/db/knex';
import type { Db } from '../../src/db/types';
import { createHttpServer } from '../../src/http/request-classes';
import { loadSpec } from '../../src/http/spec';
import { createThrottle } from '../../src/http/throttle';
import { closeChangeStreams } from '../../src/integrations/stream';
import { createLogger } from '../../src/logger';
import { NS, type TestService } from './app';

export interface OtherNode {
  server: Server;
  db: Db;
  /** Its namespace root, `http://127.0.0.1:<port>/calendar/events/v1`. */
  url: string;
  /** Ends its change streams, its server (open connections too) and its pool: a node going away. */
  close(): Promise<void>;
}

export async function startOtherNode(service: TestService, config: Config = service.config): Promise<OtherNode> {
  const { database } = service;
  const db = createDb(database.url, { schema: database.schema, lockWaitMs: 10_000 });
  const app = createApp(
    { config, db, spec: loadSpec(), throttle: createThrottle(db, config, database.schema) },
    { logger: createLogger('silent'), validateResponses: true },
  );
  const server = await new Promise<Server>((resolve) => {
    const s = createHttpServer(app).listen(0, '127.0.0.1', () => resolve(s));
  });
  const port = (server.address() as { port: number }).port;
  return {
    server,
    db,
    url: `http://127.0.0.1:${port}${NS}`,
    async close() {
      await closeChangeStreams(db);
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeAllConnections();
      await closed;
      await db.destroy();
    },
  };
}

/**
 * Starts the service: configuration, database and migrations, bootstrap administrator, HTTP, the background jobs,
 * graceful shutdown.
 */
import { createHttpTerminator } from 'http-terminator';
import { loadConfig } from './config';
import { createDb } from './db/knex';
import { migrate } from './db/migrate';
import { serviceSecret } from './db/service-secret';
import { refreshStatistics } from './db/dialect';
import { createApp } from './app';
import { createHttpServer } from './http/request-classes';
import { createLogger } from './logger';
import { loadSpec } from './http/spec';
import { createThrottle } from './http/throttle';
import { ensureAdministrator } from './users/repository';
import { createRepresentationCache } from './cache/representations';
import { createMetrics } from './metrics/registry';
import { startHorizonJob } from './resources/series/horizon';
import { startDispatcher } from './integrations/webhooks/dispatcher';
import { startRetention } from './audit/retention';
import { startPublisher } from './publishing/job';
import { closeChangeStreams } from './integrations/stream';

const STATISTICS_INTERVAL_MS = 3 * 3600_000;

async function main(): Promise<void> {
  const config = loadConfig();
  const logger = createLogger(config.logLevel);
  const db = createDb(config.databaseUrl);
  await migrate(db);
  await serviceSecret(db); // read once, before serving: it keys single reads' ETags (http/caching.ts)
  if (config.admin && (await ensureAdministrator(db, config.admin.login, config.admin.password))) {
    logger.info({ login: config.admin.login }, 'created the bootstrap administrator');
  }
  const metrics = createMetrics({ enabled: config.metrics });
  const cache = createRepresentationCache(config, metrics);
  const context = { config, db, spec: loadSpec(), throttle: createThrottle(db, config), metrics, cache };
  const server = createHttpServer(createApp(context, { logger }), {}, config.defaultLanguage);
  server.requestTimeout = config.requestTimeoutMs; // Node answers 408 and closes the connection past it
  server.headersTimeout = Math.min(20_000, config.requestTimeoutMs);
  const dispatcher = startDispatcher(context, logger); // webhooks go out from here, never from a request
  const terminator = createHttpTerminator({ server, gracefulTerminationTimeout: 10_000 });
  const stopRetention = startRetention(db, config.auditRetentionDays, logger);
  const publisher = startPublisher(db, logger); // scheduled posts go live at their date, on whichever node is first
  const statistics = setInterval(() => {
    refreshStatistics(db).catch((err: unknown) => logger.warn({ err }, 'refreshing planner statistics failed'));
  }, STATISTICS_INTERVAL_MS).unref();
  server.listen(config.port, config.host, () => {
    logger.info({ host: config.host, port: config.port, basePath: config.basePath }, 'listening');
  });

  // open-ended recurring series: horizons extended daily, by one node (the lease in the database)
  const stopHorizonJob = startHorizonJob(db, config, (err) =>
    logger.error({ err }, 'extending recurrence horizons failed'),
  );

  let stopping = false;
  const stop = async (signal: string) => {
    if (stopping) return;
    stopping = true;
    stopRetention();
    logger.info({ signal }, 'shutting down: finishing in-flight requests');
    stopHorizonJob();
    clearInterval(statistics);
    await closeChangeStreams(db); // their clients resume on another node with Last-Event-ID
    await terminator.terminate();
    await publisher.stop();
    await dispatcher.stop();
    await db.destroy();
    logger.info('stopped');
  };
  process.on('SIGTERM', () => void stop('SIGTERM'));
  process.on('SIGINT', () => void stop('SIGINT'));
}

main().catch((err: unknown) => {
  console.error(JSON.stringify({ level: 'fatal', msg: err instanceof Error ? err.message : String(err) }));
  process.exit(1);
});

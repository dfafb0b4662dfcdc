/**
 * `npx tsx bench/metrics-overhead.ts`: the CPU the metrics add to one request, measured in isolation: the request
 * middleware (start time, `finish` listener, labelled counter and histogram) and five timed queries (Knex's
 * `query`/`query-response` events), over many simulated requests. Compare with ~1 ms of CPU per API request.
 */
import { EventEmitter } from 'node:events';
import type { Request, Response } from 'express';
import { createDb } from '../src/db/knex';
import { loadSpec } from '../src/http/spec';
import { instrumentDatabase, instrumentRequests } from '../src/ops/metrics';
import { createMetrics } from '../src/metrics/registry';

const REQUESTS = Number(process.env.REQUESTS ?? 200_000);
const QUERIES_PER_REQUEST = 5;

async function main(): Promise<void> {
  const db = createDb('sqlite::memory:');
  const metrics = createMetrics();
  const spec = loadSpec();
  const middleware = instrumentRequests(metrics, spec.operations, '/calendar/events/v1', '');
  instrumentDatabase(metrics, db);
  const operation = spec.operations.find((op) => op.operationId === 'getEvent');
  let uid = 0;
  const one = () => {
    const res = Object.assign(new EventEmitter(), { statusCode: 200, locals: { operation } }) as unknown as Response;
    const req = { method: 'GET', originalUrl: '/calendar/events/v1/events/1' } as Request;
    middleware(req, res, () => {});
    for (let q = 0; q < QUERIES_PER_REQUEST; q++) {
      const query = { __knexQueryUid: `q${++uid}`, sql: 'select 1' };
      db.emit('query', query);
      db.emit('query-response', [], query);
    }
    res.emit('finish');
  };
  for (let i = 0; i < 20_000; i++) one(); // warm-up
  const started = process.cpuUsage();
  const wall = performance.now();
  for (let i = 0; i < REQUESTS; i++) one();
  const cpu = process.cpuUsage(started);
  const perRequestUs = (cpu.user + cpu.system) / REQUESTS;
  // the same loop without metrics: the cost of the simulation itself
  const bare = new EventEmitter();
  const startedBare = process.cpuUsage();
  for (let i = 0; i < REQUESTS; i++) {
    const res = Object.assign(new EventEmitter(), { statusCode: 200, locals: { operation } });
    for (let q = 0; q < QUERIES_PER_REQUEST; q++) {
      bare.emit('query', {});
      bare.emit('query-response', [], {});
    }
    res.emit('finish');
  }
  const bareCpu = process.cpuUsage(startedBare);
  const bareUs = (bareCpu.user + bareCpu.system) / REQUESTS;
  console.log(
    JSON.stringify({
      requests: REQUESTS,
      queriesPerRequest: QUERIES_PER_REQUEST,
      wallMs: Math.round(performance.now() - wall),
      cpuMicrosecondsPerRequest: +perRequestUs.toFixed(2),
      simulationOnlyMicroseconds: +bareUs.toFixed(2),
      metricsMicrosecondsPerRequest: +(perRequestUs - bareUs).toFixed(2),
    }),
  );
  await db.destroy();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});

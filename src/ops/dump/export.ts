/** The dump written: the whole database to a stream, from one consistent snapshot (the format: `format.ts`). */
import type { Writable } from 'node:stream';
import type { Db } from '../../db/types';
import { readOneSnapshot } from '../../db/dialects/bulk';
import { lastIssuedId } from '../../db/catalogue';
import { appliedMigrations } from '../../db/migrate';
import {
  countRows,
  dataTables,
  DEFAULT_BATCH,
  DUMP_FORMAT,
  DUMP_VERSION,
  eachBatch,
  type DumpHeader,
  type DumpOptions,
  type DumpTrailer,
  type TableSummary,
} from './format';

/**
 * Writes the whole database to `out` from one consistent snapshot (a read-only repeatable-read transaction on
 * PostgreSQL, a read transaction on SQLite), while the service keeps serving.
 */
export async function exportDump(
  db: Db,
  out: Writable,
  { batchSize = DEFAULT_BATCH, progress }: DumpOptions = {},
): Promise<Record<string, TableSummary>> {
  // read-only: on SQLite a deferred transaction, which never takes the write lock (db/sqlite-transaction.ts)
  return db.transaction(
    async (trx) => {
      await readOneSnapshot(trx);
      const tables = await dataTables(trx);
      const header: DumpHeader = {
        format: DUMP_FORMAT,
        version: DUMP_VERSION,
        migrations: await appliedMigrations(trx),
        tables: [],
      };
      for (const table of tables) {
        const lastId = table.sequenceColumn ? await lastIssuedId(trx, table) : undefined;
        header.tables.push({
          name: table.name,
          columns: table.columns.map((c) => [c.name, c.kind]),
          key: table.key,
          rows: await countRows(trx, table.name),
          lastId,
        });
      }
      await write(out, `${JSON.stringify(header)}\n`);
      progress?.start(
        'rows',
        header.tables.reduce((sum, t) => sum + t.rows, 0),
      );
      const summary: Record<string, TableSummary> = {};
      for (const table of tables) {
        summary[table.name] = await eachBatch(trx, table, batchSize, async (lines) => {
          await write(out, `{"table":${JSON.stringify(table.name)},"rows":[${lines.join(',')}]}\n`);
          progress?.advance(lines.length);
        });
      }
      await write(out, `${JSON.stringify({ end: true, tables: summary } satisfies DumpTrailer)}\n`);
      progress?.stop();
      return summary;
    },
    { readOnly: true },
  );
}

function write(out: Writable, text: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (err: Error) => reject(err);
    out.once('error', onError);
    const done = () => {
      out.off('error', onError);
      resolve();
    };
    if (out.write(text)) done();
    else out.once('drain', done);
  });
}

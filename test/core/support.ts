/** What the kernel's tests share: a migrated database per engine, with the service clock standing still meanwhile. */
import { manualClock, setClock, systemClock } from '../../src/domain/clock';
import { migrate } from '../../src/db/migrate';
import type { Db } from '../../src/db/types';
import { TEST_NOW } from '../support/app';
import { freshDatabase, type Engine, type TestDatabase } from '../support/engines';

/**
 * For the describe block it is called in: a fresh database of `engine` with every migration applied (no service,
 * no users), made before its tests and dropped after them, with the service clock standing at `instant` (what
 * the kernel stores as "now") until then. `db` is set once the block's first `beforeAll` has run.
 */
export function migratedDatabase(engine: Engine, instant: string = TEST_NOW): { db: Db } {
  const holder = {} as { db: Db };
  let database: TestDatabase;
  beforeAll(async () => {
    setClock(manualClock(instant));
    database = await freshDatabase(engine);
    await migrate(database.db);
    holder.db = database.db;
  });
  afterAll(async () => {
    await database.drop();
    setClock(systemClock);
  });
  return holder;
}

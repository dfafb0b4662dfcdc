import { createDb } from '../src/db/knex';
import { seed } from './seed';
async function main() {
  const [url, n] = process.argv.slice(2);
  const db = createDb(url);
  const f = await seed(db, { events: Number(n), analyze: true, progress: false });
  await db.destroy();
  console.log(JSON.stringify({ ...f, eventIds: f.eventIds.slice(0, 200) }));
}
main();

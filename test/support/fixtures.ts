/** Records the term tests need before events can be written through the API: events stored directly. */
import type { Db } from '../../src/db/knex';
import { utcNow } from '../../src/db/dialect';

let counter = 0;

export async function insertEvent(db: Db, status = 'publish', termIds: number[] = []): Promise<number> {
  const now = utcNow();
  const [row] = await db('posts').insert({
    type: 'event', status, slug: `fixture-event-${++counter}-${Date.now()}`, language: 'en', title: 'Fixture',
    date_utc: now, modified_utc: now,
  }).returning('id');
  const id = Number(row.id);
  if (termIds.length) await db('term_relationships').insert(termIds.map((term_id) => ({ post_id: id, term_id })));
  return id;
}

export async function insertPost(db: Db, type: 'venue' | 'organizer'): Promise<number> {
  const now = utcNow();
  const [row] = await db('posts').insert({
    type, status: 'publish', slug: `fixture-${type}-${++counter}-${Date.now()}`, language: 'en', title: 'Fixture',
    date_utc: now, modified_utc: now,
  }).returning('id');
  return Number(row.id);
}

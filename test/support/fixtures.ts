/** Records stored directly, for tests that need them without going through the API. */
import type { Db } from '../../src/db/types';
import { utcNow } from '../../src/db/dialect';
import { refreshCounts } from '../../src/core/term-counts';

let counter = 0;

export async function insertEvent(db: Db, status = 'publish', termIds: number[] = []): Promise<number> {
  const now = utcNow();
  const [row] = await db('posts')
    .insert({
      type: 'event',
      status,
      slug: `fixture-event-${++counter}-${Date.now()}`,
      language: 'en',
      title: 'Fixture',
      date_utc: now,
      modified_utc: now,
    })
    .returning('id');
  const id = Number(row.id);
  await db('events').insert({
    post_id: id,
    status,
    start_local: now,
    end_local: now,
    start_utc: now,
    end_utc: now,
    timezone: 'UTC',
  });
  if (termIds.length) await db('term_relationships').insert(termIds.map((term_id) => ({ post_id: id, term_id })));
  await refreshCounts(db, termIds);
  return id;
}

export async function insertPost(db: Db, type: 'venue' | 'organizer'): Promise<number> {
  const now = utcNow();
  const [row] = await db('posts')
    .insert({
      type,
      status: 'publish',
      slug: `fixture-${type}-${++counter}-${Date.now()}`,
      language: 'en',
      title: 'Fixture',
      date_utc: now,
      modified_utc: now,
    })
    .returning('id');
  return Number(row.id);
}

/** A venue stored directly (until venues can be written through the API). */
export async function insertVenue(db: Db, name: string, fields: Record<string, unknown> = {}): Promise<number> {
  const id = await insertPost(db, 'venue');
  await db('posts')
    .where({ id })
    .update({ title: name, slug: `venue-${id}` });
  await db('venues').insert({ post_id: id, ...fields });
  return id;
}

/** An organizer stored directly (until organizers can be written through the API). */
export async function insertOrganizer(db: Db, name: string, fields: Record<string, unknown> = {}): Promise<number> {
  const id = await insertPost(db, 'organizer');
  await db('posts')
    .where({ id })
    .update({ title: name, slug: `organizer-${id}` });
  await db('organizers').insert({ post_id: id, ...fields });
  return id;
}

/** A category (`tribe_events_cat`) or tag (`post_tag`) stored directly, with no posts and a count of 0. */
export async function insertTerm(db: Db, taxonomy: 'tribe_events_cat' | 'post_tag', name: string): Promise<number> {
  const [row] = await db('terms')
    .insert({ taxonomy, name, slug: `fixture-term-${++counter}-${Date.now()}`, language: 'en' })
    .returning('id');
  return Number(row.id);
}

/** A webhook subscription stored directly (its secret a placeholder: nothing is sent in the tests that use it). */
export async function insertWebhook(db: Db, events: string[], active = true): Promise<number> {
  const now = utcNow();
  const [row] = await db('webhooks')
    .insert({
      url: 'https://receiver.example/hook',
      events: JSON.stringify(events),
      active,
      secret: 'unused',
      created_utc: now,
      modified_utc: now,
    })
    .returning('id');
  return Number(row.id);
}

/**
 * The change feed and the webhook outbox (src/core/outbox.ts), on every engine: `recordChanges` appends one
 * `changes` row per record, in the order given, at the service clock's time, and one pending `webhook_deliveries`
 * row per change and matching active subscription (its event type, or `*`), none for inactive subscriptions or other
 * types; through the kernel, a write's announcements reach the feed in the order announced.
 */
import { recordChanges, subscribes } from '../../src/core/outbox';
import { write } from '../../src/core/write';
import type { Db } from '../../src/db/types';
import { ENGINES } from '../support/engines';
import { migratedDatabase } from './support';
import { insertEvent, insertTerm, insertWebhook } from '../support/fixtures';

const AT = '2031-02-03T04:05:06Z';
const AT_TEXT = '2031-02-03 04:05:06';

describe('which subscriptions take an event type', () => {
  it('takes its own types and everything with `*`, nothing else', () => {
    expect(subscribes(['*'], 'event.created')).toBe(true);
    expect(subscribes(['tag.deleted', 'event.created'], 'event.created')).toBe(true);
    expect(subscribes(['event.updated'], 'event.created')).toBe(false);
    expect(subscribes(['event'], 'event.created')).toBe(false);
    expect(subscribes([], 'event.created')).toBe(false);
  });
});

describe.each(ENGINES)('the change feed and the outbox on %s', (engine) => {
  const database = migratedDatabase(engine, AT);
  let db: Db;
  beforeAll(() => {
    db = database.db;
  });
  beforeEach(async () => {
    for (const table of ['webhook_deliveries', 'webhooks', 'changes']) await db(table).del();
  });

  const feed = async () =>
    (await db('changes').orderBy('id').select('id', 'resource', 'record_id', 'action', 'modified_utc')).map((c) => ({
      ...c,
      id: Number(c.id),
      record_id: Number(c.record_id),
    }));
  /** The outbox by subscription, then change (the order of subscriptions in an insert is the engine's). */
  const outbox = async () =>
    (await db('webhook_deliveries').orderBy(['webhook_id', 'change_id']).select()).map((d) => ({
      ...d,
      id: Number(d.id),
      webhook_id: Number(d.webhook_id),
      record_id: Number(d.record_id),
      change_id: Number(d.change_id),
      attempt_count: Number(d.attempt_count),
    }));

  it('appends a change per record in order, and a delivery per change and matching active subscription', async () => {
    const events = [await insertEvent(db), await insertEvent(db), await insertEvent(db)];
    const everything = await insertWebhook(db, ['*']);
    const creations = await insertWebhook(db, ['tag.created', 'event.created']);
    await insertWebhook(db, ['event.updated']); // another action
    await insertWebhook(db, ['tag.created']); // another resource
    await insertWebhook(db, ['*'], false); // inactive
    await insertWebhook(db, ['event.created'], false); // inactive

    const ordered = [events[2], events[0], events[1]];
    await db.transaction((trx) => recordChanges(trx, 'event', ordered, 'created'));

    const changes = await feed();
    expect(changes).toEqual(
      ordered.map((id) => ({
        id: expect.any(Number),
        resource: 'event',
        record_id: id,
        action: 'created',
        modified_utc: AT_TEXT,
      })),
    );

    const deliveries = await outbox();
    const expected = [everything, creations].flatMap((hook) =>
      changes.map((change) =>
        expect.objectContaining({
          webhook_id: hook,
          type: 'event.created',
          resource: 'event',
          record_id: change.record_id,
          change_id: change.id,
          state: 'pending',
          attempt_count: 0,
          created_utc: AT_TEXT,
          next_attempt_utc: AT_TEXT,
          payload: null,
        }),
      ),
    );
    expect(deliveries).toEqual(expected);
    const messageIds = deliveries.map((d) => d.message_id as string);
    expect(messageIds.every((id) => /^msg_[A-Za-z0-9_-]{24}$/.test(id))).toBe(true);
    expect(new Set(messageIds).size).toBe(messageIds.length); // one message id per delivery
  });

  it('writes a change but no delivery when no active subscription takes it, and nothing for no records', async () => {
    const tag = await insertTerm(db, 'post_tag', 'Unheard');
    await insertWebhook(db, ['*'], false);
    await insertWebhook(db, ['event.deleted']);
    await db.transaction(async (trx) => {
      await recordChanges(trx, 'tag', [tag], 'deleted');
      await recordChanges(trx, 'event', [], 'created');
    });
    expect(await feed()).toEqual([
      { id: expect.any(Number), resource: 'tag', record_id: tag, action: 'deleted', modified_utc: AT_TEXT },
    ]);
    expect(await outbox()).toEqual([]);
  });

  it('batches a long list (over 500 records) and keeps it whole and in order', async () => {
    const hook = await insertWebhook(db, ['event.updated']);
    const ids = Array.from({ length: 1_100 }, (_, i) => 700_000 - i); // ids need no row: a feed outlives records
    await db.transaction((trx) => recordChanges(trx, 'event', ids, 'updated'));
    const changes = await feed();
    expect(changes.map((c) => c.record_id)).toEqual(ids);
    const deliveries = await outbox();
    expect(deliveries.map((d) => [d.webhook_id, d.record_id, d.change_id])).toEqual(
      changes.map((c) => [hook, c.record_id, c.id]),
    );
  });

  it('through the kernel: the changes a write announces, in the order announced, with their deliveries', async () => {
    const [event, tag] = [await insertEvent(db), await insertTerm(db, 'post_tag', 'Announced')];
    const hook = await insertWebhook(db, ['tag.created', 'event.updated']);
    await write(db, async (w) => {
      w.change('tag', tag, 'created');
      w.change('event', [event], 'updated');
      w.change('tag', tag, 'updated'); // no subscription takes it
    });
    const changes = await feed();
    expect(changes.map((c) => `${c.resource}:${c.record_id}:${c.action}`)).toEqual([
      `tag:${tag}:created`,
      `event:${event}:updated`,
      `tag:${tag}:updated`,
    ]);
    expect((await outbox()).map((d) => [d.webhook_id, d.type, d.change_id])).toEqual([
      [hook, 'tag.created', changes[0].id],
      [hook, 'event.updated', changes[1].id],
    ]);
  });
});

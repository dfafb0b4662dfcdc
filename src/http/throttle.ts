/**
 * The failed-login throttle (D59, D61), on rate-limiter-flexible. The counters live in the database
 * (`auth_throttle`), so every API node on one database shares them. Each attempt to check a password first takes a
 * point, atomically (one upsert per counter), from three counters:
 *
 * - the login from this client (`pair`): `LOGIN_MAX_FAILURES` per window. Failures elsewhere never lock it.
 * - the client (`addr`): five times that, over all logins (several users behind one NAT).
 * - the login from anywhere (`login`): ten times that, a ceiling against guessing from many addresses; once
 *   reached, only clients that have logged in as that login before (`known`) may go on trying.
 *
 * A client is its IPv4 address, or its IPv6 /64 (one subscriber's network). A verified password gives its points
 * back and forgets the failures of its own client; a failure or a refusal keeps them. So no more passwords than the
 * allowance are ever checked, however many attempts are in flight at once.
 *
 * The same table counts each feed key's requests (`feedkey`, per application password and minute).
 */
import { createHash } from 'node:crypto';
import ipaddr from 'ipaddr.js';
import type { RateLimiterAbstract } from 'rate-limiter-flexible';
import type { Config } from '../config';
import type { Db } from '../db/types';
import { tableRateLimiter } from '../db/dialects/rate-limit';
import { statement } from '../db/statements';

export interface Throttle {
  /**
   * Takes one attempt for the login from the address before its password is checked: 0 when it may be checked,
   * else the seconds to wait (nothing is then checked).
   */
  take(login: string, address: string): Promise<number>;
  /** The password was right: gives the attempt back, forgets this client's failures, remembers the client. */
  succeeded(login: string, address: string): Promise<void>;
  /**
   * For a credential verified before (a cached one): seconds to wait when this client may not try the login now (as
   * `take` would refuse it), or 0. Nothing is taken: the password is not checked again.
   */
  blockedFor(login: string, address: string): Promise<number>;
  /**
   * Takes one request of a feed key (an application password, by id) from its allowance of `feedKeyMaxRequests` a
   * minute: 0 when it may go on, else the seconds to wait. Remembered keys cost no slow hash, but each request still
   * costs a render: this bounds what one key can make the service do.
   */
  keyedRequest(appPasswordId: number): Promise<number>;
}

/** An address gets this many times the per-login allowance (several users behind one NAT). */
export const ADDRESS_FACTOR = 5;
/** A login gets this many times the allowance over every address before only known clients may try. */
export const LOGIN_FACTOR = 10;
/** A client that logged in as a login is known to it this long. */
const KNOWN_CLIENT_SECONDS = 30 * 24 * 3600;
const TABLE = 'auth_throttle';

type Limits = Pick<Config, 'loginMaxFailures' | 'loginFailureWindowSeconds'> &
  Partial<Pick<Config, 'feedKeyMaxRequests'>>;
/** The window of a feed key's allowance. */
const KEY_WINDOW_SECONDS = 60;
const DEFAULT_KEY_REQUESTS = 60;

export function createThrottle(db: Db, config: Limits, schema?: string): Throttle {
  const make = (keyPrefix: string, points: number, duration = config.loginFailureWindowSeconds) =>
    tableRateLimiter(
      db,
      { tableName: TABLE, tableCreated: true, keyPrefix, points, duration, clearExpiredByTimeout: false },
      schema,
    );
  const max = config.loginMaxFailures;
  const counters: Counters = {
    pair: make('pair', max),
    addr: make('addr', max * ADDRESS_FACTOR),
    login: make('login', max * LOGIN_FACTOR),
    known: make('known', 1, KNOWN_CLIENT_SECONDS),
  };
  const feedKeys = make('feedkey', config.feedKeyMaxRequests ?? DEFAULT_KEY_REQUESTS, KEY_WINDOW_SECONDS);
  const giveBack = (limiter: RateLimiterAbstract, key: string) => giveBackPoint(db, limiter, key);

  return {
    take: (login, address) => take(counters, keys(login, address)),
    async succeeded(login, address) {
      const k = keys(login, address);
      await Promise.all([
        counters.pair.delete(k.pair),
        giveBack(counters.addr, k.addr),
        giveBack(counters.login, k.login),
        counters.known.set(k.pair, 1, KNOWN_CLIENT_SECONDS),
      ]);
    },
    async blockedFor(login, address) {
      const k = keys(login, address);
      const { pair, addr, login: anywhere, known } = counters;
      const named = { pair: pair.getKey(k.pair), addr: addr.getKey(k.addr), login: anywhere.getKey(k.login) };
      const knownKey = known.getKey(k.pair);
      const held = await liveCounters(db, [...Object.values(named), knownKey]);
      // past its ceiling, the login may still be tried from a client it knows
      const ceiling = held.has(knownKey) ? 0 : waitAt(held.get(named.login), anywhere.points);
      return Math.max(waitAt(held.get(named.pair), pair.points), waitAt(held.get(named.addr), addr.points), ceiling);
    },
    async keyedRequest(appPasswordId) {
      const taken = await feedKeys.penalty(String(appPasswordId));
      return taken.consumedPoints > feedKeys.points ? waitOf(taken.msBeforeNext) : 0;
    },
  };
}

interface Counters {
  pair: RateLimiterAbstract;
  addr: RateLimiterAbstract;
  login: RateLimiterAbstract;
  known: RateLimiterAbstract;
}

type Keys = Record<'pair' | 'addr' | 'login', string>;

/**
 * In this order, so that attempts refused for their client never count against the login from anywhere (else an
 * attacker's refused attempts would bring the ceiling nearer for everyone). A refused attempt keeps the points it
 * took: it was an attempt, and giving them back would let a client go on trying a remembered credential for free.
 */
async function take(counters: Counters, k: Keys): Promise<number> {
  const pair = await counters.pair.penalty(k.pair);
  if (pair.consumedPoints > counters.pair.points) return waitOf(pair.msBeforeNext);
  const addr = await counters.addr.penalty(k.addr);
  if (addr.consumedPoints > counters.addr.points) return waitOf(addr.msBeforeNext);
  const login = await counters.login.penalty(k.login);
  if (login.consumedPoints <= counters.login.points || (await counters.known.get(k.pair))) return 0;
  return waitOf(login.msBeforeNext);
}

/** A counter's row as the table holds it: points taken, and when they expire (ms; null: never). */
interface Counted {
  points: number;
  expire: number | null;
}

/**
 * The counters of `keys` whose window has not ended, read in one statement (a remembered credential asks on every
 * request): what each limiter's `get` would read, one statement each.
 */
async function liveCounters(db: Db, keys: string[]): Promise<Map<string, Counted>> {
  const rows = await LIVE_COUNTERS.all<{ key: string; points: unknown; expire: unknown }>(db, keys, Date.now());
  const expiry = (expire: unknown) => (expire === null ? null : Number(expire));
  return new Map(rows.map((row) => [row.key, { points: Number(row.points), expire: expiry(row.expire) }]));
}

const LIVE_COUNTERS = statement((db, keys: readonly string[], now: number) =>
  db(TABLE)
    .whereIn('key', keys)
    .andWhere((live) => live.where('expire', '>', now).orWhereNull('expire'))
    .select('key', 'points', 'expire'),
);

/** Seconds to wait once the counter is at its limit (the next attempt would exceed it), else 0. */
function waitAt(counted: Counted | undefined, limit: number): number {
  if (!counted || counted.points < limit) return 0;
  // as the limiter's `msBeforeNext`: -1 for a counter that never expires
  return waitOf(counted.expire === null ? -1 : Math.max(counted.expire - Date.now(), 0));
}

/** Whole seconds, at least one, for a limiter's `msBeforeNext`. */
function waitOf(msBeforeNext: number): number {
  return Math.max(1, Math.ceil(msBeforeNext / 1000));
}

/**
 * Gives one point back, never below zero and never to a window that has ended: rate-limiter-flexible's `reward`
 * would open the next window at -1, and attempts timed to end at a window's edge could then buy extra guesses.
 */
async function giveBackPoint(db: Db, limiter: RateLimiterAbstract, key: string): Promise<void> {
  await db(TABLE)
    .where({ key: limiter.getKey(key) })
    .andWhere('points', '>', 0)
    .andWhere('expire', '>', Date.now())
    .decrement('points', 1);
}

function keys(login: string, address: string): Keys {
  // digests keep keys short and printable whatever a caller sends as login (the column holds 255 characters)
  const loginKey = digest(login.toLowerCase());
  const client = clientOf(address);
  return { pair: digest(`${loginKey}\n${client}`), addr: client, login: loginKey };
}

function digest(text: string): string {
  return createHash('sha256').update(text).digest('base64url');
}

/** An IPv4 address (IPv4-mapped IPv6 included), or the /64 network of an IPv6 address, as one client. */
export function clientOf(address: string): string {
  if (!ipaddr.isValid(address)) return address.slice(0, 64);
  const ip = ipaddr.process(address);
  if (ip.kind() === 'ipv4') return ip.toString();
  const parts = (ip as ipaddr.IPv6).parts.slice(0, 4).map((part) => part.toString(16));
  return `${parts.join(':')}::/64`;
}

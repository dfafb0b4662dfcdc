/**
 * Throttles failed logins per login and per client address (rate-limiter-flexible). The counters live in the
 * database (`auth_throttle`), so every API node on one PostgreSQL database shares them.
 */
import {
  RateLimiterPostgres,
  RateLimiterSQLite,
  type RateLimiterAbstract,
  type RateLimiterRes,
} from 'rate-limiter-flexible';
import { createHash } from 'node:crypto';
import type { Config } from '../config';
import type { Db } from '../db/types';
import { isPostgres } from '../db/dialect';

export interface Throttle {
  /** Seconds to wait when the login or the address is blocked; 0 when they may try. */
  blockedFor(login: string, address: string): Promise<number>;
  recordFailure(login: string, address: string): Promise<void>;
  recordSuccess(login: string, address: string): Promise<void>;
}

/** An address gets this many times the per-login allowance (several users behind one NAT). */
const ADDRESS_FACTOR = 5;

export function createThrottle(
  db: Db,
  config: Pick<Config, 'loginMaxFailures' | 'loginFailureWindowSeconds'>,
  schema?: string,
): Throttle {
  const make = (keyPrefix: string, points: number): RateLimiterAbstract => {
    const options = {
      storeClient: db,
      storeType: 'knex',
      tableName: 'auth_throttle',
      tableCreated: true,
      keyPrefix,
      points,
      duration: config.loginFailureWindowSeconds,
      clearExpiredByTimeout: false,
    };
    return isPostgres(db)
      ? new RateLimiterPostgres({ ...options, schemaName: schema })
      : new RateLimiterSQLite(options);
  };
  const byLogin = make('login', config.loginMaxFailures);
  const byAddress = make('addr', config.loginMaxFailures * ADDRESS_FACTOR);
  // a digest keeps keys short and printable whatever a caller sends as login (the column holds 255 characters)
  const loginKey = (login: string) => createHash('sha256').update(login.toLowerCase()).digest('base64url');

  return {
    async blockedFor(login, address) {
      const [l, a] = await Promise.all([byLogin.get(loginKey(login)), byAddress.get(address)]);
      const wait = (res: RateLimiterRes | null, limit: number) =>
        res && res.consumedPoints >= limit ? Math.max(1, Math.ceil(res.msBeforeNext / 1000)) : 0;
      return Math.max(wait(l, config.loginMaxFailures), wait(a, config.loginMaxFailures * ADDRESS_FACTOR));
    },
    async recordFailure(login, address) {
      // penalty() counts without rejecting: the caller has already been answered 401
      await Promise.all([byLogin.penalty(loginKey(login)), byAddress.penalty(address)]);
    },
    async recordSuccess(login) {
      await byLogin.delete(loginKey(login));
    },
  };
}

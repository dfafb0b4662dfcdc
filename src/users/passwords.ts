/** Password hashing with scrypt (node:crypto, no native addon) and constant-time verification. */
import { randomBytes, scrypt, timingSafeEqual } from 'node:crypto';
import { promisify } from 'node:util';

const scryptCall = promisify(scrypt) as (
  password: string,
  salt: Buffer,
  keylen: number,
  options: object,
) => Promise<Buffer>;

let slowHashCount = 0;

/** Every scrypt goes through here, so the number of slow hashes a login costs can be counted (SECURITY.md). */
function scryptAsync(password: string, salt: Buffer, keylen: number, options: object): Promise<Buffer> {
  slowHashCount++;
  return scryptCall(password, salt, keylen, options);
}

/** How many scrypt hashes this process has computed: a test seam, and what a login attempt costs. */
export function slowHashes(): number {
  return slowHashCount;
}

// N = 2^15, r = 8: about 32 MiB and ~50-100 ms per hash on this class of machine (OWASP's scrypt floor is 2^17/8/1
// for interactive logins; verified credentials are cached briefly in auth.ts so the cost is paid once per client).
const PARAMS = { N: 2 ** 15, r: 8, p: 1, maxmem: 64 * 1024 * 1024 };
const KEY_LENGTH = 32;

/** `scrypt$N$r$p$salt$hash`, base64url parts: self-describing, so parameters can be raised later. */
export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16);
  const hash = await scryptAsync(password, salt, KEY_LENGTH, PARAMS);
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64url'), hash.toString('base64url')].join('$');
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const [scheme, n, r, p, salt, hash] = stored.split('$');
  if (scheme !== 'scrypt' || !salt || !hash) return false;
  const expected = Buffer.from(hash, 'base64url');
  const actual = await scryptAsync(password, Buffer.from(salt, 'base64url'), expected.length, {
    N: Number(n),
    r: Number(r),
    p: Number(p),
    maxmem: PARAMS.maxmem,
  });
  return timingSafeEqual(actual, expected);
}

/** A hash of a random password, verified against when the login is unknown, so timing does not reveal logins. */
export const DUMMY_HASH_PROMISE = hashPassword(randomBytes(16).toString('hex'));

/** A generated password for new users: 24 URL-safe characters (144 bits). */
export function generatePassword(): string {
  return randomBytes(18).toString('base64url');
}

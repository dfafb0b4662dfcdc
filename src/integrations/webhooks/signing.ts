/**
 * Standard Webhooks signing (https://www.standardwebhooks.com): `v1,` + base64 HMAC-SHA256 of
 * `{webhook-id}.{webhook-timestamp}.{body}` keyed by the base64-decoded part of the `whsec_` secret; several
 * signatures (during a rotation) are space-separated. Written from the specification with node:crypto (a dozen
 * lines); the tests verify it with the `standardwebhooks` package, an independent implementation.
 *
 * Secrets must be stored in a form we can sign with (a hash would not do). With WEBHOOK_SECRET_KEY set they are
 * sealed at rest with AES-256-GCM under a key derived from it; without it they are stored as they are.
 */
import { createCipheriv, createDecipheriv, createHash, createHmac, randomBytes } from 'node:crypto';

const PREFIX = 'whsec_';

/** `whsec_` + base64 of 32 random bytes (the specification asks for 24 to 64). */
export function newSecret(): string {
  return PREFIX + randomBytes(32).toString('base64');
}

export function signature(secret: string, messageId: string, timestamp: number, body: string): string {
  const key = Buffer.from(secret.slice(PREFIX.length), 'base64');
  return `v1,${createHmac('sha256', key).update(`${messageId}.${timestamp}.${body}`).digest('base64')}`;
}

/** The `webhook-signature` header: one signature per secret in use. */
export function signatureHeader(secrets: string[], messageId: string, timestamp: number, body: string): string {
  return secrets.map((secret) => signature(secret, messageId, timestamp, body)).join(' ');
}

const key = (passphrase: string) => createHash('sha256').update(passphrase).digest();

export function sealSecret(secret: string, passphrase: string | undefined): string {
  if (!passphrase) return `plain:${secret}`;
  const iv = randomBytes(12);
  const cipher = createCipheriv('aes-256-gcm', key(passphrase), iv);
  const sealed = Buffer.concat([cipher.update(secret, 'utf8'), cipher.final()]);
  return `aes:${Buffer.concat([iv, cipher.getAuthTag(), sealed]).toString('base64')}`;
}

export function openSecret(stored: string, passphrase: string | undefined): string {
  if (stored.startsWith('plain:')) return stored.slice('plain:'.length);
  if (!passphrase) throw new Error('a webhook secret is sealed but WEBHOOK_SECRET_KEY is not set');
  const raw = Buffer.from(stored.slice('aes:'.length), 'base64');
  const decipher = createDecipheriv('aes-256-gcm', key(passphrase), raw.subarray(0, 12));
  decipher.setAuthTag(raw.subarray(12, 28));
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8');
}

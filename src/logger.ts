/** Structured JSON logs (pino). Credentials and passwords never reach a log line. */
import pino from 'pino';

export type Logger = pino.Logger;

export const REDACTED_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["proxy-authorization"]',
  'req.query.password',
  'req.body.password',
  'res.headers["set-cookie"]',
];

export function createLogger(level: string): Logger {
  return pino({ level, redact: { paths: REDACTED_PATHS, censor: '[redacted]' } });
}

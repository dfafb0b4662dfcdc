/**
 * Requests Node's HTTP parser refuses never reach the app: a malformed request line or header, headers past the
 * size limit, a request slower than `requestTimeout`. Node answers them with an empty 400, 431 or 408; they get
 * the API's error shape instead (`{code, message, data: {status}}`), in the site's language (the request's own
 * `Accept-Language` could not be read), and the connection is closed as Node closes it.
 */
import { STATUS_CODES, type Server } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Language } from '../config';
import { message, type MessageKey } from '../i18n/messages';

const REFUSALS: Record<string, { status: number; code: string; key: MessageKey }> = {
  HPE_HEADER_OVERFLOW: { status: 431, code: 'rest_headers_too_large', key: 'headers_too_large' },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, code: 'rest_request_timeout', key: 'request_timeout' },
};
const UNREADABLE = { status: 400, code: 'rest_invalid_request', key: 'unreadable_request' as MessageKey };

export function answerClientErrors(server: Server, language: Language): void {
  server.on(
    'clientError',
    (err: NodeJS.ErrnoException, socket: Duplex & { _httpMessage?: { headersSent?: boolean } }) => {
      // a reset peer has nobody to answer; an answer already started cannot be replaced
      if (err.code === 'ECONNRESET' || !socket.writable || socket._httpMessage?.headersSent) {
        socket.destroy();
        return;
      }
      const { status, code, key } = REFUSALS[err.code ?? ''] ?? UNREADABLE;
      const body = JSON.stringify({ code, message: message(language, key), data: { status } });
      socket.end(
        `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\nContent-Type: application/json; charset=UTF-8\r\n` +
          `Content-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
      );
    },
  );
}

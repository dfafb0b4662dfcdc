/**
 * Requests Node's HTTP parser refuses before the app sees them (src/http/client-errors.ts): a header no HTTP
 * grammar allows, headers past the size limit, a request line that is not one. Each is answered in the API's
 * error shape, not with Node's empty body, and the connection is closed.
 */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { NS, startService, type TestService } from '../support/app';

let service: TestService;
beforeAll(async () => {
  service = await startService('sqlite');
});
afterAll(() => service.close());

/** Sends raw bytes and reads the whole answer until the server closes the connection. */
function raw(bytes: string): Promise<{ status: number; type: string; body: unknown }> {
  const { port } = service.server.address() as AddressInfo;
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(bytes));
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('error', reject);
    socket.on('close', () => {
      const text = Buffer.concat(chunks).toString('utf8');
      const [head, body] = text.split('\r\n\r\n');
      resolve({
        status: Number(head.split(' ')[1]),
        type: /content-type: ([^\r]*)/i.exec(head)?.[1] ?? '',
        body: JSON.parse(body),
      });
    });
  });
}

it.each([
  ['a control character in a header', `GET ${NS}/events HTTP/1.1\r\nHost: a\r\nX-Test: a\x04b\r\n\r\n`],
  ['a header name with a space', `GET ${NS}/events HTTP/1.1\r\nHost: a\r\nBad Name: b\r\n\r\n`],
  ['a request line that is not one', 'HELLO\r\n\r\n'],
])('answers %s with a JSON 400', async (_name, bytes) => {
  expect(await raw(bytes)).toEqual({
    status: 400,
    type: 'application/json; charset=UTF-8',
    body: {
      code: 'rest_invalid_request',
      message: 'The request could not be read: its request line or a header is not valid HTTP.',
      data: { status: 400 },
    },
  });
});

it('answers headers past the size limit with a JSON 431', async () => {
  const answer = await raw(`GET ${NS}/events HTTP/1.1\r\nHost: a\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
  expect(answer).toMatchObject({ status: 431, body: { code: 'rest_headers_too_large', data: { status: 431 } } });
});

/**
 * One outbound HTTP request to a URL someone else chose (an import source, a webhook receiver), connected only to
 * public addresses (src/domain/addresses.ts) unless the operator allows private ones (D62). Checked three times:
 * a literal host before anything happens (Node calls no `lookup` for one), every address a name resolves to (the
 * connection is then made to those checked addresses only, so a name that re-resolves cannot slip through), and the
 * address the socket actually connected to, which also covers a kept-alive socket reused from the agent's pool.
 */
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import net, { type LookupFunction, type Socket } from 'node:net';
import { isPublicAddress } from '../domain/addresses';

export interface AddressGuard {
  /** Allow private, loopback and every other non-public address (e.g. another instance on 127.0.0.1). */
  allowPrivate: boolean;
  /** The error to fail with: `host` as the URL names it, `address` the non-public address it is or reached. */
  refuse(host: string, address: string): Error;
}

/** The host of a URL as DNS and `net` want it (IPv6 literals lose their brackets). */
export function hostOf(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/** Starts a request (the caller ends it); throws the guard's error at once for a non-public literal host. */
export function guardedRequest(
  url: URL,
  options: http.RequestOptions,
  guard: AddressGuard,
  onResponse: (response: http.IncomingMessage) => void,
): http.ClientRequest {
  const host = hostOf(url);
  if (net.isIP(host) && !allowed(host, guard)) throw guard.refuse(host, host);
  const client = url.protocol === 'https:' ? https : http;
  const request = client.request(url, { ...options, lookup: guardedLookup(guard) }, onResponse);
  request.on('socket', (socket: Socket) => {
    const check = () => {
      const address = socket.remoteAddress ?? '';
      if (!allowed(address, guard)) request.destroy(guard.refuse(host, address || '(unknown)'));
    };
    // registered before the request flushes its head, so a refused socket never carries a byte of it
    if (socket.connecting) socket.once('connect', check);
    else check();
  });
  return request;
}

function allowed(address: string, guard: AddressGuard): boolean {
  return guard.allowPrivate || isPublicAddress(address);
}

/** Resolves a name once; every address must be allowed, and only those are handed to the connection. */
function guardedLookup(guard: AddressGuard): LookupFunction {
  return (hostname, options, callback) => {
    dns.lookup(hostname, { ...options, all: true }, (err, addresses: dns.LookupAddress[]) => {
      if (err) return callback(err, '', 0);
      const refused = addresses.find((a) => !allowed(a.address, guard));
      if (refused) return callback(guard.refuse(hostname, refused.address) as NodeJS.ErrnoException, '', 0);
      if (!addresses.length) return callback(guard.refuse(hostname, '(no address)') as NodeJS.ErrnoException, '', 0);
      if ((options as { all?: boolean }).all)
        return (callback as unknown as (e: null, a: dns.LookupAddress[]) => void)(null, addresses);
      return callback(null, addresses[0].address, addresses[0].family);
    });
  };
}

/**
 * Where webhooks may go (SSRF): http(s) only, no credentials, and never to a non-public address (the one policy of
 * src/domain/addresses.ts, D62). A literal is refused when the subscription is made; names are resolved at every
 * delivery and the connection checked by src/outbound/guard.ts, so a name that re-resolves elsewhere (DNS
 * rebinding) cannot slip through.
 */
import net from 'node:net';
import { isPublicAddress } from '../../domain/addresses';
import { type AddressGuard, hostOf } from '../../outbound/guard';

/** Whether a subscription URL is acceptable at all: http(s), a host, no credentials, no private literal address. */
export function acceptableUrl(text: string, allowPrivate: boolean): URL | undefined {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return undefined;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return undefined;
  if (!url.hostname || url.username || url.password) return undefined;
  const host = hostOf(url);
  if (!allowPrivate && net.isIP(host) && !isPublicAddress(host)) return undefined;
  return url;
}

/** The address policy at delivery; the message lands in the attempt's `error`. */
export function deliveryGuard(allowPrivate: boolean): AddressGuard {
  return {
    allowPrivate,
    refuse: (host, address) => new Error(`refused: ${host} resolves to the non-public address ${address}`),
  };
}

import fs from 'node:fs';
/**
 * Headless Chromium as the browser tests drive it (through playwright-core): Debian's `chromium`, or CHROMIUM_PATH,
 * quiet (no background traffic), with the test's host names resolved to this machine.
 */
export const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/** Launch arguments, with each of `hosts` mapped to 127.0.0.1 (sites served as a deployment names them). */
export function chromiumArgs(hosts: string[]): string[] {
  return [
    '--headless',
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
    `--host-resolver-rules=${hosts.map((host) => `MAP ${host} 127.0.0.1`).join(', ')}`,
  ];
}

/** Fails the suite with what to install when there is no Chromium (provision.sh installs Debian's). */
export function requireChromium(): void {
  if (!fs.existsSync(CHROMIUM)) {
    throw new Error(`no Chromium at ${CHROMIUM}: \`apt-get install chromium\` (Debian) or set CHROMIUM_PATH`);
  }
}

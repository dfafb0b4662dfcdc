/**
 * Independent checkers of iCalendar text: Mozilla's ical.js (npm), Debian's python3-icalendar and
 * python3-recurring-ical-events (test/support/ical_check.py), and a Debian radicale CalDAV server on loopback that
 * refuses invalid objects. scripts/provision.sh installs the Debian packages.
 */
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import ICAL from 'ical.js';

const PYTHON = '/usr/bin/python3'; // Debian's, where apt puts the modules (not a pyenv python first on PATH)
const CHECKER = path.join(__dirname, 'ical_check.py');

export interface ParsedEvent {
  uid: string;
  summary: string;
  description: string | null;
  location: string | null;
  url: string | null;
  /** UTC `YYYY-MM-DD HH:MM:SS`, or `{date}` for all-day values. */
  start: string | { date: string };
  end: string | { date: string };
  sequence: number;
  status: string | null;
  class: string | null;
  categories: string[];
  geo: [number, number] | null;
  organizer: { cn: string | null; value: string } | null;
  recurrence_id: string | { date: string } | null;
  /** ical.js only: RRULE, RDATE and EXDATE as written. */
  rrule?: string | null;
  rdates?: string[];
  exdates?: string[];
}

const utcText = (date: Date) => date.toISOString().slice(0, 19).replace('T', ' ');

/** The VEVENTs as ical.js reads them, times converted to UTC through the feed's own VTIMEZONEs. */
export function parseWithIcalJs(text: string): { name: string; events: ParsedEvent[] } {
  const calendar = new ICAL.Component(ICAL.parse(text));
  ICAL.TimezoneService.reset();
  for (const zone of calendar.getAllSubcomponents('vtimezone')) ICAL.TimezoneService.register(zone);
  try {
    const time = (value: ICAL.Time | null) => {
      if (!value) return { date: '' };
      return value.isDate ? { date: value.toString() } : utcText(value.toJSDate());
    };
    const events = calendar.getAllSubcomponents('vevent').map((vevent) => {
      const event = new ICAL.Event(vevent);
      const str = (name: string) => {
        const value = vevent.getFirstPropertyValue(name);
        return value === null ? null : String(value);
      };
      const geo = vevent.getFirstPropertyValue('geo') as number[] | null;
      const organizer = vevent.getFirstProperty('organizer');
      const recurrence = vevent.getFirstPropertyValue('recurrence-id') as ICAL.Time | null;
      return {
        uid: event.uid,
        summary: event.summary,
        description: event.description,
        location: event.location,
        url: str('url'),
        start: time(event.startDate),
        end: time(event.endDate),
        sequence: event.sequence,
        status: str('status'),
        class: str('class'),
        categories: vevent.getAllProperties('categories').flatMap((p) => p.getValues().map(String)),
        geo: geo ? ([Number(geo[0]), Number(geo[1])] as [number, number]) : null,
        organizer: organizer
          ? {
              cn: (organizer.getParameter('cn') as string | undefined) ?? null,
              value: String(organizer.getFirstValue()),
            }
          : null,
        recurrence_id: recurrence ? time(recurrence) : null,
        rrule: vevent.getFirstPropertyValue('rrule')?.toString() ?? null,
        rdates: vevent
          .getAllProperties('rdate')
          .flatMap((p) => p.getValues().map((v) => time(v as ICAL.Time)))
          .map(String),
        exdates: vevent
          .getAllProperties('exdate')
          .flatMap((p) => p.getValues().map((v) => time(v as ICAL.Time)))
          .map(String),
      };
    });
    return { name: String(calendar.getFirstPropertyValue('x-wr-calname') ?? ''), events };
  } finally {
    ICAL.TimezoneService.reset();
  }
}

/** The VEVENTs as python3-icalendar reads them. */
export function parseWithPython(text: string): { name: string; timezones: string[]; events: ParsedEvent[] } {
  return JSON.parse(runPython([], text)) as ReturnType<typeof parseWithPython>;
}

/** Occurrences as python3-recurring-ical-events expands them between two dates (`YYYY-MM-DD`). */
export function expandWithPython(
  text: string,
  from: string,
  to: string,
): Array<{ uid: string; summary: string; start: ParsedEvent['start']; end: ParsedEvent['end'] }> {
  return JSON.parse(runPython(['--expand', from, to], text)) as ReturnType<typeof expandWithPython>;
}

function runPython(args: string[], input: string): string {
  const run = spawnSync(PYTHON, [CHECKER, ...args], { input, encoding: 'utf8', timeout: 60_000 });
  if (run.status !== 0) throw new Error(`python3-icalendar refused the calendar: ${run.stderr}`);
  return run.stdout;
}

/** One iCalendar object per VEVENT (CalDAV stores one UID per resource), each with the VTIMEZONEs it names. */
export function splitByUid(text: string): Map<string, string> {
  const calendar = new ICAL.Component(ICAL.parse(text));
  const zones = calendar.getAllSubcomponents('vtimezone');
  const byUid = new Map<string, ICAL.Component>();
  for (const vevent of calendar.getAllSubcomponents('vevent')) {
    const uid = String(vevent.getFirstPropertyValue('uid'));
    let one = byUid.get(uid);
    if (!one) {
      one = new ICAL.Component('vcalendar');
      for (const prop of calendar.getAllProperties()) one.addProperty(ICAL.Property.fromString(prop.toICALString()));
      for (const zone of zones) one.addSubcomponent(new ICAL.Component(zone.toJSON()));
      byUid.set(uid, one);
    }
    one.addSubcomponent(new ICAL.Component(vevent.toJSON()));
  }
  return new Map([...byUid].map(([uid, c]) => [uid, c.toString()]));
}

export interface Radicale {
  /** PUTs one calendar object; resolves to the HTTP status (201 stored, 4xx refused). */
  put(name: string, ics: string): Promise<{ status: number; body: string }>;
  /** The stored objects of the test calendar, as radicale answers them. */
  get(name: string): Promise<{ status: number; body: string }>;
  stop(): Promise<void>;
}

/** A radicale CalDAV server on a free loopback port, storing in a temporary folder, without authentication. */
export async function startRadicale(): Promise<Radicale> {
  const folder = fs.mkdtempSync(path.join(os.tmpdir(), 'radicale-'));
  const child: ChildProcess = spawn(
    PYTHON,
    [
      '-m',
      'radicale',
      '--config',
      '',
      '--server-hosts',
      '127.0.0.1:0',
      '--auth-type',
      'none',
      '--rights-type',
      'authenticated',
      '--storage-filesystem-folder',
      folder,
      '--logging-level',
      'info',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const port = await new Promise<number>((resolve, reject) => {
    let log = '';
    const timer = setTimeout(() => reject(new Error(`radicale did not start: ${log}`)), 120_000);
    const read = (chunk: Buffer) => {
      log += chunk.toString();
      const match = /Listening on '\[?127\.0\.0\.1\]?:(\d+)'/.exec(log);
      if (match) {
        clearTimeout(timer);
        resolve(Number(match[1]));
      }
    };
    child.stdout?.on('data', read);
    child.stderr?.on('data', read);
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`radicale exited (${code}): ${log}`));
    });
  });
  const base = `http://127.0.0.1:${port}/tests/feed/`;
  const stop = async () => {
    child.removeAllListeners('exit');
    if (child.exitCode === null)
      await new Promise<void>((resolve) => {
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
      });
    fs.rmSync(folder, { recursive: true, force: true });
  };
  for (const [url, method] of [
    [`http://127.0.0.1:${port}/tests/`, 'MKCOL'],
    [base, 'MKCALENDAR'],
  ]) {
    const made = await fetch(url, { method });
    if (made.status !== 201) {
      await stop();
      throw new Error(`radicale ${method} answered ${made.status}: ${await made.text()}`);
    }
  }
  const call = async (name: string, init: RequestInit) => {
    const res = await fetch(`${base}${encodeURIComponent(name)}.ics`, init);
    return { status: res.status, body: await res.text() };
  };
  return {
    put: (name, ics) =>
      call(name, { method: 'PUT', body: ics, headers: { 'Content-Type': 'text/calendar; charset=utf-8' } }),
    get: (name) => call(name, { method: 'GET' }),
    stop,
  };
}

/** Every physical line of the text: CRLF-terminated, at most 75 octets. */
export function physicalLines(text: string): string[] {
  expect(text.endsWith('\r\n')).toBe(true);
  expect(text.replace(/\r\n/g, '')).not.toMatch(/[\r\n]/);
  return text.slice(0, -2).split('\r\n');
}

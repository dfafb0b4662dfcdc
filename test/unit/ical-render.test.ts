/** The pure parts of the iCalendar feed and the importer: folding, escaping, time zones. */
import { DateTime } from 'luxon';
import { fold, paramValue, text } from '../../src/domain/icalendar';
import { htmlToText } from '../../src/domain/html';
import { vtimezone } from '../../src/feeds/ical/vtimezone';
import { readCalendar, resolveZone } from '../../src/imports/ics';

describe('folding', () => {
  it('keeps short lines and cuts long ones at 75 octets, never inside a character', () => {
    expect(fold('SUMMARY:short')).toBe('SUMMARY:short');
    const long = `SUMMARY:${'😀é日a'.repeat(40)}`;
    const lines = fold(long).split('\r\n');
    for (const line of lines) expect(Buffer.byteLength(line)).toBeLessThanOrEqual(75);
    expect(lines.slice(1).every((line) => line.startsWith(' '))).toBe(true);
    expect(lines.map((line, i) => (i ? line.slice(1) : line)).join('')).toBe(long);
    expect(fold(long)).not.toContain('\uFFFD');
  });
});

describe('escaping', () => {
  it('escapes TEXT and drops control characters', () => {
    expect(text('a;b,c\\d\r\ne\nf\rg\u0000h\u001bi')).toBe('a\\;b\\,c\\\\d\\ne\\nf\\ng' + 'hi');
  });
  it('quotes parameter values that need it and turns double quotes into single ones', () => {
    expect(paramValue('Plain')).toBe('Plain');
    expect(paramValue('Doe, Chris')).toBe('"Doe, Chris"');
    expect(paramValue('A "B":C\r\nX-EVIL')).toBe('"A \'B\':C X-EVIL"');
  });
  it('turns HTML into plain text', () => {
    expect(htmlToText('<p>One &amp; two</p><p>Three<br>four &#x263A; &#9731; &nbsp;</p>')).toBe(
      'One & two\nThree\nfour ☺ ☃',
    );
  });
});

describe('VTIMEZONE', () => {
  it('lists every offset change of the years covered, with the onset in the local time before it', () => {
    const lines = vtimezone(
      'Europe/Amsterdam',
      DateTime.fromISO('2027-07-01T00:00:00Z'),
      DateTime.fromISO('2027-07-02T00:00:00Z'),
    );
    expect(lines).toContain('DTSTART:20270328T020000');
    expect(lines).toContain('DTSTART:20271031T030000');
    expect(lines.filter((l) => l === 'BEGIN:DAYLIGHT')).toHaveLength(3); // 2026, 2027, 2028
  });
  it('writes one observance for zones without changes', () => {
    const lines = vtimezone(
      'Asia/Tokyo',
      DateTime.fromISO('2027-07-01T00:00:00Z'),
      DateTime.fromISO('2027-07-02T00:00:00Z'),
    );
    expect(lines.filter((l) => l.startsWith('BEGIN:STANDARD'))).toHaveLength(1);
    expect(lines).toContain('TZOFFSETTO:+0900');
  });
});

describe('import helpers', () => {
  it('resolves IANA, Windows, prefixed and fixed-offset zone names', () => {
    expect(resolveZone('Europe/Berlin')).toBe('Europe/Berlin');
    expect(resolveZone('Pacific Standard Time')).toBe('America/Los_Angeles');
    expect(resolveZone('W. Europe Standard Time')).toBe('Europe/Berlin');
    expect(resolveZone('/freeassociation.sourceforge.net/Tzfile/Europe/Paris')).toBe('Europe/Paris');
    expect(resolveZone('UTC+05:30')).toBe('UTC+5:30');
    expect(resolveZone('Mars Standard Time')).toBeUndefined();
  });
  it('finds the line of every event and of a broken line', () => {
    const cal = readCalendar(
      'BEGIN:VCALENDAR\r\nBEGIN:VEVENT\r\nUID:a\r\nDTSTART:20270101T000000Z\r\nEND:VEVENT\r\n' +
        'BEGIN:VEVENT\r\nUID:b\r\nnot a line\r\nEND:VEVENT\r\nBEGIN:VEVENT\r\nUID:c\r\n',
    );
    expect(cal.events.map((e) => [e.line, e.error ?? 'ok'])).toEqual([
      [2, 'ok'],
      [8, expect.stringMatching(/broken line/)],
      [10, 'VEVENT is never closed'],
    ]);
  });
});

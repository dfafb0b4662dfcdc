/**
 * Request generators for the property-based fuzz tests, derived from the bundled spec (`loadSpec()`): for every
 * operation, its path parameters, query parameters and body fields get fast-check arbitraries that mix valid values
 * (from the parameter's schema, plus a few hints by name so that writes can succeed), boundary values, wrong types,
 * oversized and unicode strings, injection-looking strings, missing and extra fields, malformed JSON and form bodies,
 * odd headers and every kind of caller.
 *
 * Generated requests are symbolic where they point at stored records (`Ref`): the record is picked when the request
 * is sent, from what the database holds at that moment, so that ids and slugs keep meaning something while the run
 * creates and deletes records.
 */
import fc from 'fast-check';
import type { OpenAPIV3_1 } from 'openapi-types';
import { LANGUAGES } from '../../src/config';
import { resolve, type LoadedSpec, type Operation } from '../../src/http/spec';
import { ROLES, type Role } from '../../src/users/roles';

export type RecordKind = 'event' | 'venue' | 'organizer' | 'category' | 'tag';
const KINDS: RecordKind[] = ['event', 'venue', 'organizer', 'category', 'tag'];

/** A stored record, chosen when the request is sent: `pick` modulo the records of `kind` then in the database. */
export class Ref {
  constructor(
    readonly kind: RecordKind,
    readonly as: 'id' | 'idText' | 'slug' | 'name',
    readonly pick: number,
  ) {}
  [fc.toStringMethod](): string {
    return `Ref(${this.kind}.${this.as}#${this.pick})`;
  }
}

/** Text already percent-encoded for a URL (malformed escapes, `%00`…), sent as is. */
export class Raw {
  constructor(readonly encoded: string) {}
  [fc.toStringMethod](): string {
    return `Raw(${JSON.stringify(this.encoded)})`;
  }
}

/** Items joined with commas once resolved (`categories: "12,jazz"`). */
export class Joined {
  constructor(readonly items: Json[]) {}
  [fc.toStringMethod](): string {
    return `Joined(${fc.stringify(this.items)})`;
  }
}

/** Text generated lazily when sent (so a 1 MB value is neither stored nor shrunk): `char` repeated `length` times. */
export class Long {
  constructor(
    readonly char: string,
    readonly length: number,
  ) {}
  [fc.toStringMethod](): string {
    return `Long(${JSON.stringify(this.char)}×${this.length})`;
  }
}

/** The ids 1…`count` (generated when sent): a list far longer than any real one. */
export class Many {
  constructor(readonly count: number) {}
  [fc.toStringMethod](): string {
    return `Many(1…${this.count})`;
  }
}

export type Json = null | boolean | number | string | Ref | Joined | Long | Many | Json[] | { [key: string]: Json };
/** A path or query value: text to percent-encode, or already encoded text. */
export type Piece = string | Raw | Ref | Long;

export type Auth =
  | { kind: 'anonymous' }
  | { kind: 'role'; role: Role }
  | { kind: 'wrong-password'; login: string }
  /** An `Authorization` header that is malformed or of another scheme. */
  | { kind: 'header'; value: string; description: string };

export type Body =
  | { kind: 'json'; value: Json; contentType?: string }
  | { kind: 'form'; value: Json }
  | {
      kind: 'raw';
      text: string;
      contentType: string;
      encoding?: 'gzip' | 'gzip-valid' | 'deflate' | 'br' | 'identity' | 'x-unknown';
    }
  /** `value` as JSON with `field` set to `depth` nested arrays or objects. */
  | { kind: 'deep'; value: Json; field: string; depth: number; open: 'array' | 'object' }
  /** A body just over the limit (`bytes` bytes), as JSON or form. */
  | { kind: 'oversize'; bytes: number; form: boolean };

export interface FuzzRequest {
  operationId: string;
  /** A GET operation sent as HEAD. */
  head: boolean;
  path: Record<string, Piece>;
  /** Query pairs in order; a null value is a bare key (`?flag`). */
  query: Array<[string, Piece | Joined | null]>;
  body?: Body;
  auth: Auth;
  headers: Record<string, string>;
}

export interface GeneratorContext {
  spec: LoadedSpec;
  /** Ids of the users, for `author`. */
  userIds: number[];
  /** Password of the seeded password-protected event. */
  eventPassword: string;
  /** The body limit in bytes. */
  bodyLimit: number;
}

// ---------------------------------------------------------------------------------------------------------------
// Text

/** Injection-looking, path-looking and template-looking strings. */
export const INJECTIONS = [
  "' OR 1=1 --",
  "' OR '1'='1",
  '"; DROP TABLE posts; --',
  "1' UNION SELECT password_hash FROM users --",
  '1; SELECT pg_sleep(1)',
  "') OR ('a'='a",
  '%',
  '_',
  '%%',
  '\\',
  '\\%',
  '\\_',
  '*',
  '?',
  '[',
  '[]',
  '{}',
  '$where',
  '{"$gt":""}',
  'a%2Cb',
  '<script>alert(1)</script>',
  '<img src=x onerror=alert(1)>',
  '"><svg/onload=alert(1)>',
  'javascript:alert(1)',
  '../../etc/passwd',
  '..\\..\\windows',
  '/',
  '//',
  '..',
  '.',
  '~',
  // biome-ignore lint/suspicious/noTemplateCurlyInString: a template injection probe, sent as text
  '${7*7}',
  '{{7*7}}',
  '#{7*7}',
  '%s%s%s%n',
  '%x',
  'null',
  'undefined',
  'NaN',
  'Infinity',
  '-Infinity',
  'true',
  'false',
  '0',
  '-0',
  '1e309',
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  'valueOf',
  '\\u0000',
  '%00',
  'select',
  'DROP',
  'OR',
  ';',
  '--',
  '/*',
  '*/',
];

/** Unicode, control and other awkward characters. */
export const UNICODE = [
  '日本語のイベント',
  'Événement à Zürich',
  'Ærøskøbing',
  'İstanbul ılık',
  'straße',
  'ǅemal',
  'مرحبا بالعالم',
  'שלום',
  '\u202eevil\u202c',
  'emoji 🎉👩‍👩‍👧‍👦🏳️‍🌈',
  '🎉',
  '\u0000',
  'a\u0000b',
  '\u0001\u0002\u001f',
  '\uFEFFbom',
  'zero\u200bwidth',
  'e\u0301 combining',
  '\u00a0nbsp\u00a0',
  '\r\n',
  '\t',
  ' ',
  '   ',
  '\u2028\u2029',
  '\ud800',
  '\udfff lone',
  'Ω≈ç√∫',
  '￿',
  '\u{10FFFF}',
  '𝕳𝖊𝖑𝖑𝖔',
  'Ⅻ',
  '١٢٣',
  '〇',
  'ﬁ',
  'ㅤ',
  '\u0085',
];

const WORDS = ['Concert', 'Jazz night', 'Market', 'Workshop', 'Lecture', 'Run', 'Tour', 'Festival', 'Meetup', 'Fair'];

const printable = fc.string({ unit: 'grapheme', maxLength: 40 });
const binary = fc.string({ unit: 'binary', maxLength: 40 });

/** Plausible names: words with a number, so that creates rarely collide. */
const niceText = fc
  .tuple(fc.constantFrom(...WORDS), fc.integer({ min: 1, max: 1_000_000 }))
  .map(([w, n]) => `${w} ${n}`);

/** Text of every awkward kind, short. */
export const hostileText: fc.Arbitrary<string> = fc.oneof(
  { weight: 4, arbitrary: fc.constantFrom(...INJECTIONS) },
  { weight: 4, arbitrary: fc.constantFrom(...UNICODE) },
  { weight: 2, arbitrary: printable },
  { weight: 2, arbitrary: binary },
  { weight: 1, arbitrary: fc.constantFrom('', ' ', '\n') },
  { weight: 1, arbitrary: fc.tuple(niceText, fc.constantFrom(...INJECTIONS, ...UNICODE)).map(([a, b]) => `${a} ${b}`) },
);

/** 10–100 KB of one character (generated when sent). */
export const longText: fc.Arbitrary<Long> = fc
  .tuple(
    fc.constantFrom('a', 'é', '日', '🎉', '%', '_', "'", '<', ' ', '0', '\u0000'),
    fc.integer({ min: 10_000, max: 100_000 }),
  )
  .map(([char, length]) => new Long(char, char.length > 1 ? Math.floor(length / 2) : length));

/** Any text, mostly plausible. */
const text: fc.Arbitrary<string | Long> = fc.oneof(
  { weight: 6, arbitrary: niceText },
  { weight: 4, arbitrary: hostileText },
  { weight: 1, arbitrary: longText },
);

const htmlText = fc.oneof(
  niceText.map((t) => `<p>${t}</p>`),
  fc.constantFrom(
    '<b>bold</b><script>alert(1)</script>',
    '<a href="javascript:alert(1)">x</a>',
    '<p onclick="x()">p</p>',
    '<iframe src="//evil"></iframe>',
    '<<<>>>',
    '<p>unclosed',
    '&amp;&lt;&#0;&#x0;',
    '<!-- comment -->',
    '<style>*{}</style>',
    '<img src=x onerror=alert(1)>',
    '<svg><script>alert(1)</script></svg>',
    '<div><div><div>nested</div></div></div>',
    '',
  ),
  hostileText,
);

// ---------------------------------------------------------------------------------------------------------------
// Values by meaning

const wallClock = fc.date({
  min: new Date('2000-01-01T00:00:00Z'),
  max: new Date('2040-12-31T23:59:59Z'),
  noInvalidDate: true,
});
const ymdhms = (d: Date) => d.toISOString().slice(0, 19).replace('T', ' ');

/** Dates as the plugin accepts them. */
export const validDate: fc.Arbitrary<string | number> = fc.oneof(
  { weight: 4, arbitrary: wallClock.map(ymdhms) },
  { weight: 1, arbitrary: wallClock.map((d) => ymdhms(d).slice(0, 10)) },
  { weight: 1, arbitrary: wallClock.map((d) => ymdhms(d).slice(0, 16)) },
  { weight: 1, arbitrary: wallClock.map((d) => d.toISOString()) },
  { weight: 1, arbitrary: wallClock.map((d) => d.toISOString().replace('Z', '+05:30')) },
  {
    weight: 2,
    arbitrary: fc.constantFrom(
      'tomorrow 9am',
      'next wednesday 4pm',
      'now',
      'today',
      'tomorrow',
      'yesterday',
      '+1 week',
      'last day of next month',
      'next monday',
    ),
  },
  { weight: 1, arbitrary: wallClock.map((d) => Math.floor(d.getTime() / 1000)) },
);

/** Dates that should be refused, or that stress the parser. */
export const hostileDate: fc.Arbitrary<string | number> = fc.oneof(
  fc.constantFrom(
    '0000-00-00 00:00:00',
    '2030-02-30',
    '2030-13-01',
    '2030-01-01 24:00:00',
    '2030-01-01 23:59:60',
    '9999-12-31 23:59:59',
    '10000-01-01',
    '-0001-01-01',
    '+275760-09-13',
    '1e10',
    '@1234567890',
    'next blursday',
    '+999999999 years',
    '-999999999 years',
    '+9999999999999999999 seconds',
    'last day of',
    'first monday of january 99999',
    'Infinity',
    'NaN',
    'now now now',
    '2030-01-01T10:00:00+25:00',
    '2030-01-01 10:00:00 Mars/Olympus',
    '1970-01-01 00:00:00',
    '1900-01-01',
    '2038-01-19 03:14:08',
    '12/31/2030',
    '31/12/2030',
    '2030/12/31',
  ),
  fc.constantFrom(0, -1, 1e20, -1e20, 2 ** 31, 2 ** 53, 253402300800, -62135596801, 8.64e15),
  fc.integer(),
  hostileText,
);

const dateValue = fc.oneof({ weight: 5, arbitrary: validDate }, { weight: 2, arbitrary: hostileDate });

const flagValues = [true, false, 1, 0, 'true', 'false', '1', '0'] as const;
const flagValue: fc.Arbitrary<Json> = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom<Json>(...flagValues) },
  { weight: 1, arbitrary: fc.constantFrom<Json>('yes', 'on', 'no', 2, -1, '', 'TRUE', null, [], {}) },
);
const flagText = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom('true', 'false', '1', '0') },
  {
    weight: 1,
    arbitrary: fc.constantFrom('yes', 'on', 'no', 'y', 'enable', 'enabled', '2', '-1', 'TRUE', 'True', ' 1'),
  },
);

const WRITE_STATUSES = ['publish', 'future', 'draft', 'pending', 'private'];
const statusValue = fc.oneof(
  { weight: 6, arbitrary: fc.constantFrom(...WRITE_STATUSES) },
  { weight: 1, arbitrary: fc.constantFrom('trash', 'auto-draft', 'inherit', 'any', 'PUBLISH', 'bogus', '') },
);
const statusFilter = fc.oneof(
  fc.constantFrom(
    'publish',
    'draft',
    'future',
    'pending',
    'private',
    'trash',
    'publish,draft',
    'publish,trash,private',
    'any',
    'PUBLISH',
    'bogus',
    ',',
    'publish,',
  ),
  fc.subarray([...WRITE_STATUSES, 'trash']).map((s) => s.join(',') || 'publish'),
);

const timezoneValue = fc.constantFrom(
  'UTC',
  'Europe/Amsterdam',
  'America/New_York',
  'Asia/Kathmandu',
  'Pacific/Chatham',
  'UTC+2',
  'UTC-5:30',
  'UTC+14',
  'UTC-12',
  'UTC+99',
  'utc',
  'Etc/GMT+12',
  '',
  'Mars/Olympus',
  'Europe/',
  '+02:00',
  'EST',
  'local',
);

const urlValue = fc.constantFrom(
  'https://example.com/',
  'http://example.org/page?x=1#y',
  'example.com',
  'https://例え.テスト/パス',
  'javascript:alert(1)',
  'ftp://example.com/file',
  'mailto:a@example.com',
  '//example.com',
  'https://',
  'http://localhost:8080/',
  `https://a.b/${'p'.repeat(3000)}`,
  '',
  ' ',
  'not a url',
);

const imageValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    'https://example.com/a.jpg',
    'https://example.com/b.PNG',
    'http://cdn.example.org/x/y.webp?size=2',
    'https://example.com/a.txt',
    'http://localhost/a.png',
    'http://127.0.0.1/a.jpg',
    'http://10.1.2.3/a.gif',
    'http://[::1]/a.png',
    'http://169.254.169.254/latest.jpg',
    'http://x.localhost/a.jpg',
    'file:///etc/passwd.png',
    'https://example.com/.jpg',
    'data:image/png;base64,AAAA',
    '',
    0,
    1,
    -1,
    999999,
    '7',
    'abc',
  ),
  fc.integer({ min: 1, max: 50 }),
);

const costValue: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    '10',
    '$10',
    '10 - 20',
    '$10 - $20',
    'Free',
    '€5,50',
    '5,50 €',
    '0',
    '-5',
    '1e308',
    'free',
    '',
    ' ',
    '$',
    '¥1000',
    '10,000.50',
  ),
  fc.array(fc.oneof(fc.integer({ min: -5, max: 1000 }), fc.constantFrom<Json>('5', 'Free', '$20')), { maxLength: 4 }),
  fc.oneof(fc.integer(), fc.double({ noNaN: true })),
  hostileText,
);

const emailValue = fc.constantFrom(
  'org@example.com',
  'a+b@example.co.uk',
  'not-an-email',
  '',
  '@',
  'a@b',
  '"quoted"@example.com',
  '<script>@x.y',
  'ü@ü.de',
);
const geoValue = (limit: number): fc.Arbitrary<Json> =>
  fc.oneof(
    fc.double({ min: -limit, max: limit, noNaN: true }),
    fc.constantFrom<Json>('', 0, limit, -limit, limit + 0.0001, 1e308, -1e308, '52.1', 'north', null),
  );

/** A reference to a stored record, mostly of `kind`, sometimes of another kind. */
export function ref(kind: RecordKind, as: Ref['as'] = 'id'): fc.Arbitrary<Ref> {
  return fc.oneof(
    { weight: 9, arbitrary: fc.nat().map((pick) => new Ref(kind, as, pick)) },
    {
      weight: 1,
      arbitrary: fc.tuple(fc.constantFrom(...KINDS), fc.nat()).map(([other, pick]) => new Ref(other, as, pick)),
    },
  );
}

const unknownId = fc.oneof(
  fc.integer({ min: 1, max: 100_000 }),
  fc.constantFrom(2 ** 31 - 1, 2 ** 31, 2 ** 53 - 1, 1e20),
);

/** Category or tag references: ids, slugs, names, new names, as an array or a comma-separated string. */
function termRefs(kind: 'category' | 'tag'): fc.Arbitrary<Json> {
  const item: fc.Arbitrary<Json> = fc.oneof(
    { weight: 3, arbitrary: ref(kind, 'id') },
    { weight: 1, arbitrary: ref(kind, 'idText') },
    { weight: 2, arbitrary: ref(kind, 'slug') },
    { weight: 1, arbitrary: ref(kind, 'name') },
    { weight: 2, arbitrary: niceText },
    { weight: 1, arbitrary: unknownId },
    { weight: 1, arbitrary: hostileText },
    { weight: 1, arbitrary: fc.constantFrom<Json>(null, true, {}, [], -1, 0, 1.5) },
  );
  const items = fc.array(item, { maxLength: 4 });
  return fc.oneof(
    { weight: 8, arbitrary: items },
    { weight: 4, arbitrary: items.map((list) => new Joined(list)) },
    { weight: 2, arbitrary: fc.constantFrom<Json>('', [], ',', ' , ') },
    { weight: 1, arbitrary: manyIds },
  );
}

/** The inline form of a venue or organizer (its name field plus a few others). */
function inlineRecord(kind: 'venue' | 'organizer'): fc.Arbitrary<Json> {
  const others: Record<string, fc.Arbitrary<Json>> = kind === 'venue'
    ? { city: text, geo_lat: geoValue(90), show_map: flagValue }
    : { email: emailValue, phone: text };
  const name = fc.oneof(
    { weight: 4, arbitrary: niceText },
    { weight: 1, arbitrary: hostileText },
    { weight: 1, arbitrary: ref(kind, 'name') },
  );
  return fc.record({ [kind]: name as fc.Arbitrary<Json>, ...others }, { requiredKeys: [kind] }) as fc.Arbitrary<Json>;
}

function linkItem(kind: 'venue' | 'organizer'): fc.Arbitrary<Json> {
  return fc.oneof(
    { weight: 4, arbitrary: ref(kind, 'id') },
    { weight: 1, arbitrary: ref(kind, 'idText') },
    { weight: 1, arbitrary: ref(kind, 'id').map((id): Json => ({ id })) },
    { weight: 2, arbitrary: inlineRecord(kind) },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Json>(
        0,
        '',
        [],
        null,
        '0',
        -1,
        'abc',
        { id: 0 },
        { id: 'x' },
        {},
        { name: 'x' },
        [1, 2],
      ),
    },
    { weight: 1, arbitrary: unknownId },
  );
}

/** Thousands of ids in one list (a 1 MB body holds about 150 000). */
const manyIds: fc.Arbitrary<Json> = fc.integer({ min: 1000, max: 70_000 }).map((n) => new Many(n));

const venueLink = linkItem('venue');
const organizerLink: fc.Arbitrary<Json> = fc.oneof(
  { weight: 8, arbitrary: linkItem('organizer') },
  { weight: 8, arbitrary: fc.array(linkItem('organizer'), { maxLength: 3 }) },
  { weight: 1, arbitrary: manyIds },
);

/** Values for body fields the spec types loosely, chosen by name so that writes can succeed. */
function bodyHint(name: string, kind: RecordKind | undefined, ctx: GeneratorContext): fc.Arbitrary<Json> | undefined {
  switch (name) {
    case 'title':
    case 'name':
      return text;
    case 'venue':
      return kind === 'event' ? venueLink : text;
    case 'organizer':
      return kind === 'event' ? organizerLink : text;
    case 'description':
    case 'excerpt':
      return htmlText;
    case 'slug':
      return fc.oneof(
        { weight: 3, arbitrary: niceText },
        { weight: 2, arbitrary: ref(kind ?? 'event', 'slug') },
        { weight: 2, arbitrary: hostileText },
      );
    case 'author':
      return fc.oneof(
        fc.constantFrom(...ctx.userIds),
        fc.constantFrom<Json>(0, -1, 999_999, 2 ** 31, '1', 'admin', null),
      );
    case 'date':
    case 'date_utc':
    case 'start_date':
    case 'end_date':
      return dateValue;
    case 'status':
      return statusValue;
    case 'timezone':
      return timezoneValue;
    case 'all_day':
    case 'show_map':
    case 'show_map_link':
    case 'hide_from_listings':
    case 'sticky':
    case 'featured':
      return flagValue;
    case 'image':
      return imageValue;
    case 'cost':
      return costValue;
    case 'website':
      return urlValue;
    case 'email':
      return emailValue;
    case 'categories':
      return termRefs('category');
    case 'tags':
      return termRefs('tag');
    case 'parent':
      return fc.oneof(
        { weight: 4, arbitrary: ref('category', 'id') },
        { weight: 1, arbitrary: ref('category', 'idText') },
        { weight: 2, arbitrary: fc.constantFrom<Json>(0, -1, '0', '', 'abc', 999_999, 2 ** 31, null, 1.5) },
      );
    case 'password':
      return fc.oneof(fc.constant(ctx.eventPassword), fc.constantFrom('', 'wrong'), hostileText);
    case 'geo_lat':
      return geoValue(90);
    case 'geo_lng':
      return geoValue(180);
    case 'phone':
    case 'address':
    case 'city':
    case 'country':
    case 'province':
    case 'state':
    case 'zip':
    case 'stateprovince':
      return text;
    default:
      return undefined;
  }
}

/** Only values a write should accept (for requests meant to get through). */
function validBodyHint(
  name: string,
  kind: RecordKind | undefined,
  ctx: GeneratorContext,
): fc.Arbitrary<Json> | undefined {
  const validVenue: fc.Arbitrary<Json> = fc.oneof(
    { weight: 4, arbitrary: ref('venue', 'id').map((r) => new Ref('venue', 'id', r.pick)) },
    { weight: 2, arbitrary: niceText.map((venue): Json => ({ venue, city: 'Utrecht' })) },
    { weight: 1, arbitrary: fc.constantFrom<Json>(0, '', [], null) },
  );
  const validOrganizer: fc.Arbitrary<Json> = fc.oneof(
    fc.nat().map((pick): Json => new Ref('organizer', 'id', pick)),
    niceText.map((organizer): Json => ({ organizer })),
  );
  const validTerms = (k: 'category' | 'tag'): fc.Arbitrary<Json> =>
    fc.array(
      fc.oneof(
        fc.nat().map((pick): Json => new Ref(k, 'id', pick)),
        fc.nat().map((pick): Json => new Ref(k, 'slug', pick)),
        niceText,
      ),
      { maxLength: 3 },
    );
  switch (name) {
    case 'title':
    case 'name':
    case 'phone':
    case 'address':
    case 'city':
    case 'country':
    case 'province':
    case 'state':
    case 'zip':
    case 'stateprovince':
      return niceText;
    case 'venue':
      return kind === 'event' ? validVenue : niceText;
    case 'organizer':
      return kind === 'event' ? fc.oneof(validOrganizer, fc.array(validOrganizer, { maxLength: 2 })) : niceText;
    case 'description':
    case 'excerpt':
      return niceText.map((t) => `<p>${t}</p>`);
    case 'slug':
      return niceText;
    case 'author':
      return fc.constantFrom(...ctx.userIds);
    case 'date':
    case 'date_utc':
    case 'start_date':
    case 'end_date':
      return validDate;
    case 'status':
      return fc.constantFrom(...WRITE_STATUSES);
    case 'timezone':
      return fc.constantFrom('UTC', 'Europe/Amsterdam', 'America/New_York', 'UTC+2');
    case 'all_day':
    case 'show_map':
    case 'show_map_link':
    case 'hide_from_listings':
    case 'sticky':
    case 'featured':
      return fc.constantFrom<Json>(...flagValues);
    case 'image':
      return fc.constantFrom('https://example.com/a.jpg', 'https://cdn.example.org/b.png');
    case 'cost':
      return fc.constantFrom<Json>('10', '$10 - $20', 'Free', [5, 10]);
    case 'website':
      return fc.constantFrom('https://example.com/', 'http://example.org/page');
    case 'email':
      return fc.constantFrom('org@example.com', 'a+b@example.co.uk');
    case 'categories':
      return validTerms('category');
    case 'tags':
      return validTerms('tag');
    case 'parent':
      return kind === 'category' ? fc.nat().map((pick): Json => new Ref('category', 'id', pick)) : undefined;
    case 'password':
      return fc.constantFrom(ctx.eventPassword, '');
    case 'geo_lat':
      return fc.double({ min: -90, max: 90, noNaN: true });
    case 'geo_lng':
      return fc.double({ min: -180, max: 180, noNaN: true });
    case 'url':
      return fc.constantFrom('https://receiver.example.com/hook', 'http://hooks.example.org/in?x=1');
    case 'events':
      return fc.constantFrom<Json>(['*'], ['event.created'], ['tag.created', 'tag.deleted']);
    case 'active':
      return fc.boolean();
    default:
      return undefined;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// Values from schemas

type Schema = OpenAPIV3_1.SchemaObject & { const?: unknown; items?: unknown };

/** A value of the schema (resolving `$ref`, `allOf`, `anyOf`, `oneOf`, type lists, enums, bounds, patterns). */
export function fromSchema(document: OpenAPIV3_1.Document, raw: unknown, depth = 0): fc.Arbitrary<Json> {
  const schema = resolve<Schema>(document, raw as Schema);
  if (!schema || typeof schema !== 'object') return fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Json>;
  if ('const' in schema) return fc.constant(schema.const as Json);
  if (schema.enum) return fc.constantFrom(...(schema.enum as Json[]));
  const branches = schema.anyOf ?? schema.oneOf;
  if (branches) return fc.oneof(...branches.map((b) => fromSchema(document, b, depth + 1)));
  if (schema.allOf) {
    const merged = Object.assign(
      {},
      ...schema.allOf.map((part) => resolve<Schema>(document, part as Schema)),
    ) as Schema;
    return fromSchema(document, { ...schema, allOf: undefined, ...merged }, depth + 1);
  }
  const types = (Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : ['string']) as string[];
  return fc.oneof(...types.map((type) => ofType(document, schema, type, depth)));
}

function ofType(document: OpenAPIV3_1.Document, schema: Schema, type: string, depth: number): fc.Arbitrary<Json> {
  switch (type) {
    case 'integer': {
      const min = typeof schema.minimum === 'number' ? schema.minimum : -1000;
      const max = typeof schema.maximum === 'number' ? schema.maximum : min + 1000;
      return fc.integer({ min, max });
    }
    case 'number': {
      const min =
        typeof schema.minimum === 'number'
          ? schema.minimum
          : typeof schema.exclusiveMinimum === 'number'
            ? schema.exclusiveMinimum + 0.001
            : -1000;
      const max = typeof schema.maximum === 'number' ? schema.maximum : min + 1000;
      return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
    }
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const items = schema.items
        ? fromSchema(document, schema.items, depth + 1)
        : (fc.jsonValue({ maxDepth: 1 }) as fc.Arbitrary<Json>);
      return fc.array(items, { minLength: schema.minItems ?? 0, maxLength: Math.min(schema.maxItems ?? 3, 3) });
    }
    case 'object': {
      if (depth > 3 || !schema.properties) return fc.constant({});
      const props = Object.fromEntries(
        Object.entries(schema.properties).map(([k, v]) => [k, fromSchema(document, v, depth + 1)]),
      );
      return fc.record(props, { requiredKeys: schema.required ?? [] }) as fc.Arbitrary<Json>;
    }
    default: {
      if (schema.pattern) {
        try {
          return fc
            .stringMatching(new RegExp(schema.pattern), { maxLength: 20 })
            .filter((s) => s.length >= (schema.minLength ?? 0));
        } catch {
          /* a pattern fast-check cannot read: plain text */
        }
      }
      return fc.string({ minLength: schema.minLength ?? 0, maxLength: Math.min(schema.maxLength ?? 20, 20) });
    }
  }
}

/** A value of another JSON type than the schema wants (or junk of any kind). */
export const wrongType: fc.Arbitrary<Json> = fc.oneof(
  fc.constantFrom<Json>(
    null,
    true,
    false,
    0,
    -1,
    1.5,
    2 ** 53,
    -(2 ** 53),
    1e308,
    '',
    'text',
    [],
    [1, 'a'],
    {},
    { a: 1 },
    [[[]]],
    { '': '' },
  ),
  fc.jsonValue({ maxDepth: 3 }) as fc.Arbitrary<Json>,
);

// ---------------------------------------------------------------------------------------------------------------
// Parameters

type Parameter = OpenAPIV3_1.ParameterObject;

/** The resource an operation's path is about. */
export function kindOf(op: Operation): RecordKind | undefined {
  const first = op.path.split('/')[1];
  return ({ events: 'event', venues: 'venue', organizers: 'organizer', categories: 'category', tags: 'tag' } as const)[
    first as 'events'
  ];
}

const numberText = (n: fc.Arbitrary<number>) => n.map(String);

/** Valid-looking query values by parameter name (else from the schema). */
function queryHint(
  name: string,
  kind: RecordKind | undefined,
  schema: Schema,
  ctx: GeneratorContext,
): fc.Arbitrary<Piece | Joined> {
  const eventRefs = fc.array(ref('event', 'id'), { minLength: 1, maxLength: 3 }).map((refs) => new Joined(refs));
  switch (name) {
    case 'page':
      return fc.oneof(
        { weight: 4, arbitrary: numberText(fc.integer({ min: 1, max: 3 })) },
        { weight: 1, arbitrary: numberText(fc.integer({ min: 1, max: 1_000_000 })) },
      );
    case 'per_page':
      return numberText(fc.integer({ min: 1, max: 60 }));
    case 'start_date':
    case 'end_date':
    case 'starts_before':
    case 'starts_after':
    case 'ends_before':
    case 'ends_after':
      return validDate.map(String);
    case 'search':
      return fc.oneof(fc.constantFrom(...WORDS, 'Fuzz', 'fuzz', 'a'), ref(kind ?? 'event', 'name'));
    case 'categories':
      return fc
        .array(fc.oneof(ref('category', 'id'), ref('category', 'slug')), { minLength: 1, maxLength: 3 })
        .map((r) => new Joined(r));
    case 'tags':
      return fc
        .array(fc.oneof(ref('tag', 'id'), ref('tag', 'slug')), { minLength: 1, maxLength: 3 })
        .map((r) => new Joined(r));
    case 'venue':
      return fc.array(ref('venue', 'id'), { minLength: 1, maxLength: 2 }).map((r) => new Joined(r));
    case 'organizer':
      return fc.array(ref('organizer', 'id'), { minLength: 1, maxLength: 2 }).map((r) => new Joined(r));
    case 'include':
    case 'exclude':
      if (kind === 'category' || kind === 'tag')
        return fc
          .array(fc.oneof(ref(kind, 'id'), ref(kind, 'slug')), { minLength: 1, maxLength: 3 })
          .map((r) => new Joined(r));
      return eventRefs;
    case 'featured':
    case 'geoloc':
    case 'hide_empty':
    case 'force':
    case 'strict_dates':
    case 'has_events':
    case 'only_with_upcoming':
      return flagText;
    case 'ticketed':
      return fc.constantFrom('false', '0', 'true');
    case 'status':
      return statusFilter;
    case 'geoloc_lat':
      return numberText(fc.double({ min: -90, max: 90, noNaN: true }));
    case 'geoloc_lng':
      return numberText(fc.double({ min: -180, max: 180, noNaN: true }));
    case 'geoloc_radius':
      return numberText(fc.oneof(fc.double({ min: 0.001, max: 20_000, noNaN: true }), fc.constantFrom(1e308, 5e-324)));
    case 'post_parent':
    case 'event':
    case 'post':
      return ref('event', 'id');
    case 'parent':
      return ref('category', 'id');
    case 'slug':
      return ref(kind ?? 'category', 'slug');
    case 'password':
      return fc.oneof(fc.constant(ctx.eventPassword), fc.constantFrom('', 'wrong'));
    case 'order':
      return fc.constantFrom('asc', 'desc', 'ASC', 'Desc', 'sideways');
    case 'orderby':
      return fc.constantFrom(
        'id',
        'name',
        'slug',
        'description',
        'count',
        'parent',
        'term_group',
        'include',
        'include_slugs',
        'none',
        'NAME',
        'bogus',
        'name; drop table terms',
      );
    case 'i18n_language':
      return fc.oneof(
        { weight: 5, arbitrary: fc.constantFrom(...LANGUAGES) },
        { weight: 1, arbitrary: fc.constantFrom('xx', 'EN', 'en-US', 'pt_BR', 'klingon', 'en,fr') },
      );
    case 'namespace':
      return fc.constantFrom('calendar/events/v1', 'tribe/events/v1', 'wp/v2', '', '/');
    case 'context':
      return fc.constantFrom('view', 'edit', 'embed', 'bogus');
    default:
      return fromSchema(ctx.spec.document, schema).map((v) =>
        v === null ? '' : typeof v === 'object' ? JSON.stringify(v) : String(v),
      );
  }
}

/**
 * Text that breaks a parameter of this schema: wrong types, bounds, empty, long, awkward characters, malformed escapes.
 */
function hostileQueryValue(schema: Schema): fc.Arbitrary<Piece> {
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]) as Array<string | undefined>;
  const numeric = types.includes('integer') || types.includes('number');
  const boundaries = numeric
    ? fc.constantFrom(
        '0',
        '-1',
        '-0',
        '1.5',
        '1e3',
        '1e309',
        '2147483647',
        '2147483648',
        '9007199254740991',
        '9007199254740993',
        '99999999999999999999',
        '-9223372036854775809',
        '0x10',
        '+1',
        ' 1',
        '1 ',
        '01',
        '1_000',
        '١',
        'NaN',
        'Infinity',
        'abc',
        'true',
        '[]',
        '1,2',
      )
    : fc.constantFrom('0', '-1', 'true', 'null', 'x'.repeat(256), '[]', '{}');
  return fc.oneof(
    { weight: 3, arbitrary: boundaries },
    { weight: 3, arbitrary: hostileText },
    { weight: 1, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: longText },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        new Raw('%00'),
        new Raw('%zz'),
        new Raw('%'),
        new Raw('%E0%A4%A'),
        new Raw('%C0%AF'),
        new Raw('%ED%A0%80'),
        new Raw('%FF%FE'),
        new Raw('a+b'),
        new Raw('a%2Cb'),
        new Raw('%2e%2e%2f'),
        new Raw('%26x%3D1'),
        new Raw('%5B%5D'),
        new Raw('%0d%0aSet-Cookie:x=1'),
      ),
    },
  );
}

/** The pairs one query parameter contributes: valid or hostile values, as a scalar, or in the three array forms. */
function queryPairs(
  param: Parameter,
  kind: RecordKind | undefined,
  ctx: GeneratorContext,
  hostileMode: boolean,
): fc.Arbitrary<Array<[string, Piece | Joined | null]>> {
  const schema = resolve<Schema>(ctx.spec.document, param.schema as Schema);
  const { name } = param;
  const isArray = schema.type === 'array';
  const itemSchema = isArray ? resolve<Schema>(ctx.spec.document, schema.items as Schema) : schema;
  const valid = queryHint(name, kind, schema, ctx);
  if (!hostileMode) return valid.map((v): Array<[string, Piece | Joined | null]> => [[name, v]]);
  const hostile = hostileQueryValue(itemSchema);
  const value = fc.oneof(
    { weight: 6, arbitrary: valid as fc.Arbitrary<Piece | Joined> },
    { weight: 4, arbitrary: hostile },
  );
  const many = fc.array(
    fc.oneof({ weight: 3, arbitrary: valid as fc.Arbitrary<Piece | Joined> }, { weight: 1, arbitrary: hostile }),
    { minLength: 1, maxLength: 4 },
  );
  type Pairs = Array<[string, Piece | Joined | null]>;
  return fc.oneof(
    { weight: 10, arbitrary: value.map((v): Pairs => [[name, v]]) },
    // repeated, bracketed and indexed forms (an array for a scalar parameter, or the three forms of an array)
    { weight: 2, arbitrary: many.map((vs): Pairs => vs.map((v) => [name, v])) },
    { weight: 2, arbitrary: many.map((vs): Pairs => vs.map((v) => [`${name}[]`, v])) },
    { weight: 1, arbitrary: many.map((vs): Pairs => vs.map((v, i) => [`${name}[${i}]`, v])) },
    // objects and odd keys through the extended query parser
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom('a', '__proto__', 'constructor', '0', 'length', ''), value)
        .map(([key, v]): Pairs => [[`${name}[${key}]`, v]]),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom<Pairs>(
        [[name, null]],
        [[name, '']],
        [[`${name}[]`, '']],
        [
          [name, ''],
          [name, ''],
        ],
      ),
    },
    // thousands of items: a long comma list, or many repeated keys
    ...(isArray
      ? [
          {
            weight: 1,
            arbitrary: fc
              .integer({ min: 500, max: 40_000 })
              .map((n): Pairs => [[name, Array.from({ length: n }, (_, i) => i + 1).join(',')]]),
          },
        ]
      : []),
  );
}

/** Unknown and global query parameters (the plugin ignores unknown ones). */
const extraQuery: fc.Arbitrary<Array<[string, Piece | null]>> = fc.array(
  fc.tuple(
    fc.oneof(
      fc.constantFrom(
        '_fields',
        '_embed',
        '_envelope',
        '_jsonp',
        '_method',
        'context',
        'foo',
        'rest_route',
        '__proto__[polluted]',
        'constructor[prototype][polluted]',
        'a[b][c][d][e][f][g][h]',
        'x'.repeat(300),
        '',
        '[]',
        '%00',
      ),
      printable,
    ),
    fc.oneof(
      printable.map((s): Piece | null => s),
      fc.constantFrom<Piece | null>(null, 'DELETE', 'edit', 'alert(1)', new Raw('%zz')),
    ),
  ),
  { maxLength: 3 },
);

/** A path parameter: an id or a slug of a stored record mostly, else boundaries, wrong shapes and malformed escapes. */
function pathPiece(param: Parameter, kind: RecordKind | undefined, hostileMode: boolean): fc.Arbitrary<Piece> {
  const k = kind ?? 'event';
  if (!hostileMode) {
    const existing = fc.nat().map((pick) => new Ref(k, param.name === 'slug' ? 'slug' : 'id', pick));
    return fc.oneof(
      { weight: 9, arbitrary: existing },
      { weight: 1, arbitrary: ref(k, param.name === 'slug' ? 'slug' : 'id') },
    );
  }
  const malformed = fc.constantFrom(
    new Raw('%00'),
    new Raw('%zz'),
    new Raw('%E0%A4%A'),
    new Raw('%'),
    new Raw('1%2F2'),
    new Raw('%2e%2e'),
    new Raw('..'),
    new Raw('.'),
    new Raw('1;x=2'),
    new Raw('%C0%AF'),
    new Raw('%ED%A0%80'),
    new Raw('%20'),
    new Raw('a%2Fb'),
  );
  if (param.name === 'slug') {
    return fc.oneof(
      { weight: 10, arbitrary: ref(k, 'slug') },
      { weight: 2, arbitrary: fc.constantFrom('no-such-slug', 'by-slug', 'event', 'a', '-', '0', '1') },
      { weight: 3, arbitrary: hostileText.filter((s) => s.length > 0) },
      { weight: 1, arbitrary: fc.integer({ min: 200, max: 20_000 }).map((n) => new Long('s', n)) },
      { weight: 2, arbitrary: malformed },
    );
  }
  return fc.oneof(
    { weight: 12, arbitrary: ref(k, 'id') },
    { weight: 2, arbitrary: numberText(fc.integer({ min: 1, max: 5000 })) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '0',
        '2147483647',
        '2147483648',
        '4294967296',
        '9007199254740991',
        '9007199254740993',
        '99999999999999999999',
        `1${'0'.repeat(400)}`,
        '-1',
        '00001',
        '-0',
      ),
    },
    {
      weight: 2,
      arbitrary: fc.oneof(
        fc.constantFrom(
          'abc',
          '1.5',
          '1e3',
          ' 1',
          '0x10',
          '١٢',
          '+1',
          '1,2',
          'NaN',
          'Infinity',
          'null',
          '[]',
          '1 OR 1=1',
        ),
        hostileText.filter((s) => s.length > 0),
      ),
    },
    { weight: 1, arbitrary: malformed },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Bodies

/** One change that makes a valid-looking body invalid or odd. */
type Mutation =
  | { kind: 'drop'; pick: number }
  | { kind: 'wrong'; pick: number; value: Json }
  | { kind: 'long'; pick: number; value: Long }
  | { kind: 'extra'; key: string; value: Json }
  | { kind: 'nested'; pick: number; value: Json };

const extraKey = fc.oneof(
  fc.constantFrom(
    'id',
    'post_id',
    'type',
    'role',
    'password_hash',
    'global_id',
    'rest_url',
    'modified',
    'count',
    'taxonomy',
    '__proto__',
    'constructor',
    'prototype',
    '',
    ' ',
    'title ',
    'TITLE',
    'a.b',
    'a[b]',
    '$set',
    '0',
    'x'.repeat(500),
  ),
  printable,
);

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.nat().map((pick): Mutation => ({ kind: 'drop', pick })),
  fc.tuple(fc.nat(), wrongType).map(([pick, value]): Mutation => ({ kind: 'wrong', pick, value })),
  fc.tuple(fc.nat(), longText).map(([pick, value]): Mutation => ({ kind: 'long', pick, value })),
  fc
    .tuple(extraKey, fc.oneof(wrongType, hostileText as fc.Arbitrary<Json>))
    .map(([key, value]): Mutation => ({ kind: 'extra', key, value })),
  fc
    .tuple(fc.nat(), fc.jsonValue({ maxDepth: 5 }) as fc.Arbitrary<Json>)
    .map(([pick, value]): Mutation => ({ kind: 'nested', pick, value: { nested: value } })),
);

function applyMutations(body: Record<string, Json>, mutations: Mutation[], fields: string[]): Record<string, Json> {
  const out: Record<string, Json> = { ...body };
  for (const m of mutations) {
    const present = Object.keys(out);
    if (m.kind === 'extra') {
      Object.defineProperty(out, m.key, { value: m.value, enumerable: true, writable: true, configurable: true });
    } else if (m.kind === 'drop') {
      if (present.length) delete out[present[m.pick % present.length]];
    } else {
      const key = fields[m.pick % fields.length];
      out[key] = m.value;
    }
  }
  return out;
}

/** A valid-looking object for the operation's body: required fields always, each optional field now and then. */
function validObject(op: Operation, ctx: GeneratorContext, hostileMode = true): fc.Arbitrary<Record<string, Json>> {
  const body = op.body as NonNullable<Operation['body']>;
  const kind = kindOf(op);
  const arbitraries: Record<string, fc.Arbitrary<Json>> = {};
  for (const [name, schema] of Object.entries(body.properties)) {
    if (!hostileMode) {
      const hint = validBodyHint(name, kind, ctx);
      if (hint) arbitraries[name] = hint;
      continue;
    }
    const hint = bodyHint(name, kind, ctx);
    const generic = fromSchema(ctx.spec.document, schema);
    arbitraries[name] = hint ? fc.oneof({ weight: 5, arbitrary: hint }, { weight: 1, arbitrary: generic }) : generic;
  }
  const required = [...body.required];
  // creates need their required fields; updates mostly send a few
  const object = fc.record(arbitraries, { requiredKeys: required }) as fc.Arbitrary<Record<string, Json>>;
  if (kind !== 'event') return object;
  // events: a start before the end most of the time, so that writes get through
  const schedule = fc.option(fc.tuple(wallClock, fc.integer({ min: 0, max: 72 * 3600 })), { freq: 2 });
  return fc.tuple(object, schedule).map(([o, s]) => {
    if (!s || !('start_date' in o || 'end_date' in o || required.includes('start_date'))) return o;
    const [start, seconds] = s;
    return { ...o, start_date: ymdhms(start), end_date: ymdhms(new Date(start.getTime() + seconds * 1000)) };
  });
}

const MALFORMED_JSON = [
  '{',
  '}',
  '{"title":}',
  "{'title':'x'}",
  '{"title":"x",}',
  '[1,2',
  'NaN',
  'undefined',
  '{"title":"x"}{"title":"y"}',
  '\uFEFF{"title":"x"}',
  '{"title":"\\ud800"}',
  '{"a":1e999}',
  '{"title":"x","start_date":1e999,"end_date":-1e999}',
  '{"__proto__":{"admin":true},"title":"x"}',
  '{"constructor":{"prototype":{"x":1}}}',
  '"just a string"',
  '123',
  'null',
  'true',
  '',
  '   ',
  '{"title":"\\u0000"}',
  '{"title":"a","title":""}',
  `{"title":"x"${' '.repeat(10000)}}`,
  '\x00\x01\x02',
  '<xml/>',
  'title=x&start_date=tomorrow',
  '{"title":"\\x41"}',
  '{"title":"\\uZZZZ"}',
  '{"title": "x" /* comment */}',
  '{"title":"x"}\n\n\n',
  '[]',
  '[{}]',
  '{"":""}',
  '{"title":9007199254740993}',
  '{"id":-1,"name":"x"}',
];

const ODD_CONTENT_TYPES = [
  'text/plain',
  'application/xml',
  'text/xml',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  'application/json; charset=utf-16',
  'application/json; charset=UTF-8',
  'application/json;charset=iso-8859-1',
  'application/JSON',
  'application/vnd.api+json',
  'application/merge-patch+json',
  'application/x-www-form-urlencoded; charset=iso-8859-1',
  'application/octet-stream',
  ';;;',
  'application/json, text/plain',
  'application/json; boundary=x',
  'json',
  '*/*',
  'application/*',
];

/** A body for any operation (with or without a declared body). */
function bodyArbitrary(op: Operation, ctx: GeneratorContext, hostileMode: boolean): fc.Arbitrary<Body | undefined> {
  if (!hostileMode) {
    if (!op.body) return fc.constant(undefined);
    return fc
      .tuple(validObject(op, ctx, false), fc.integer({ min: 0, max: 4 }))
      .map(([value, n]): Body => (n === 0 ? { kind: 'form', value } : { kind: 'json', value }));
  }
  const junkJson = fc.oneof(
    fc.constantFrom<Json>([], [1, 2], null, 'string', 0, true, [{}], [{ title: 'x' }]),
    fc.jsonValue({ maxDepth: 4 }) as fc.Arbitrary<Json>,
  );
  const raw = fc.oneof(
    {
      weight: 4,
      arbitrary: fc
        .constantFrom(...MALFORMED_JSON)
        .map((t): Body => ({ kind: 'raw', text: t, contentType: 'application/json' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(fc.constantFrom(...MALFORMED_JSON), fc.constantFrom(...ODD_CONTENT_TYPES))
        .map(([t, ct]): Body => ({ kind: 'raw', text: t, contentType: ct })),
    },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom(
          'a=1&a[b]=2',
          'title=x&title[]=y',
          '%zz=1',
          `a[${']['.repeat(100)}]=1`,
          Array.from({ length: 1500 }, (_, i) => `k${i}=v`).join('&'),
          `a${'[a]'.repeat(40)}=1`,
          '__proto__[x]=1&title=x',
          'title=%E0%A4%A&start_date=x',
        )
        .map((t): Body => ({ kind: 'raw', text: t, contentType: 'application/x-www-form-urlencoded' })),
    },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          fc.constantFrom('{"title":"x"}', 'garbage'),
          fc.constantFrom('gzip', 'gzip-valid', 'deflate', 'br', 'identity', 'x-unknown') as fc.Arbitrary<'gzip'>,
        )
        .map(([t, encoding]): Body => ({ kind: 'raw', text: t, contentType: 'application/json', encoding })),
    },
    { weight: 1, arbitrary: binary.map((t): Body => ({ kind: 'raw', text: t, contentType: 'application/json' })) },
  );
  const oversize = fc
    .tuple(fc.integer({ min: 1, max: 200_000 }), fc.boolean())
    .map(([extra, form]): Body => ({ kind: 'oversize', bytes: ctx.bodyLimit + extra, form }));

  if (!op.body) {
    return fc.oneof(
      { weight: 20, arbitrary: fc.constant(undefined) },
      { weight: 1, arbitrary: junkJson.map((value): Body => ({ kind: 'json', value })) },
      { weight: 1, arbitrary: raw },
    );
  }
  const fields = Object.keys(op.body.properties);
  const mutated = fc
    .tuple(validObject(op, ctx), fc.array(mutation, { maxLength: 3 }))
    .map(([o, ms]) => applyMutations(o, ms, fields));
  return fc.oneof(
    { weight: 12, arbitrary: validObject(op, ctx).map((value): Body => ({ kind: 'json', value })) },
    { weight: 10, arbitrary: mutated.map((value): Body => ({ kind: 'json', value })) },
    { weight: 3, arbitrary: fc.oneof(validObject(op, ctx), mutated).map((value): Body => ({ kind: 'form', value })) },
    { weight: 1, arbitrary: fc.constant(undefined) },
    { weight: 2, arbitrary: junkJson.map((value): Body => ({ kind: 'json', value })) },
    { weight: 3, arbitrary: raw },
    {
      weight: 1,
      arbitrary: fc
        .tuple(
          validObject(op, ctx),
          fc.constantFrom(...fields),
          fc.integer({ min: 2, max: 20_000 }),
          fc.constantFrom<'array' | 'object'>('array', 'object'),
        )
        .map(([value, field, depth, open]): Body => ({ kind: 'deep', value, field, depth, open })),
    },
    { weight: 1, arbitrary: oversize },
  );
}

// ---------------------------------------------------------------------------------------------------------------
// Callers and headers

const b64 = (s: string | Buffer) => Buffer.from(s).toString('base64');

function authArbitrary(op: Operation, hostileMode: boolean): fc.Arbitrary<Auth> {
  const writing = op.method !== 'get';
  const roles: Role[] = writing ? ['administrator', 'administrator', 'editor', 'editor', ...ROLES] : [...ROLES];
  if (!hostileMode) {
    return fc.oneof(
      { weight: 1, arbitrary: fc.constant<Auth>({ kind: 'anonymous' }) },
      { weight: 6, arbitrary: fc.constantFrom(...roles).map((role): Auth => ({ kind: 'role', role })) },
    );
  }
  const malformed = fc.constantFrom<[string, string]>(
    ['Basic', 'bare scheme'],
    ['Basic ', 'empty credentials'],
    ['Basic !!!!', 'not base64'],
    [`Basic ${b64('nocolon')}`, 'no colon'],
    [`Basic ${b64(':password')}`, 'empty login'],
    [`Basic ${b64('\u0000:\u0000')}`, 'NUL login'],
    [`Basic ${b64(Buffer.from([0xff, 0xfe, 0x3a, 0x80]))}`, 'invalid UTF-8'],
    [`Basic ${b64('administrator-user:correct horse battery staple')}===junk`, 'junk after base64'],
    [`Basic ${'A'.repeat(8000)}`, 'long'],
    ['Bearer abc.def.ghi', 'bearer'],
    ['Digest username="x"', 'digest'],
    ['Negotiate YII=', 'negotiate'],
    ['basic', 'lower-case bare scheme'],
    [`Basic ${b64(`${'x'.repeat(300)}:${'y'.repeat(300)}`)}`, 'long login'],
    [`Basic ${b64("' OR 1=1 --:x")}`, 'injection login'],
    [`Basic ${b64('日本:語')}`, 'unicode login'],
    ['Basic YWRtaW4=:', 'colon outside base64'],
    ['Basic\tYTpi', 'tab'],
  );
  return fc.oneof(
    { weight: 3, arbitrary: fc.constant<Auth>({ kind: 'anonymous' }) },
    { weight: 12, arbitrary: fc.constantFrom(...roles).map((role): Auth => ({ kind: 'role', role })) },
    {
      weight: 1,
      arbitrary: fc
        .constantFrom('administrator-user', 'subscriber-user', 'nobody-here', 'ADMINISTRATOR-USER', 'a')
        .map((login): Auth => ({ kind: 'wrong-password', login })),
    },
    { weight: 1, arbitrary: malformed.map(([value, description]): Auth => ({ kind: 'header', value, description })) },
  );
}

const headerText = fc.string({
  unit: fc.integer({ min: 0x20, max: 0x7e }).map((c) => String.fromCharCode(c)),
  maxLength: 60,
});
const latin1Text = fc.string({
  unit: fc
    .integer({ min: 0x20, max: 0xff })
    .filter((c) => c < 0x7f || c > 0x9f)
    .map((c) => String.fromCharCode(c)),
  maxLength: 60,
});

const headersArbitrary: fc.Arbitrary<Record<string, string>> = fc
  .record(
    {
      accept: fc.constantFrom(
        'application/xml',
        'text/html',
        '*/*',
        'application/json;q=0',
        'garbage/, ,',
        'application/json',
        'image/png',
      ),
      'accept-language': fc.constantFrom('fr', 'de-DE,de;q=0.9', '*', 'xx', ''),
      'accept-charset': fc.constantFrom('latin1', 'utf-16'),
      'x-request-id': fc.oneof(headerText, fc.constantFrom('a'.repeat(65), 'bad id!', '../../x')),
      'x-junk': fc.integer({ min: 1000, max: 12_000 }).map((n) => 'j'.repeat(n)),
      'x-latin1': latin1Text,
      'x-http-method-override': fc.constantFrom('DELETE', 'PUT', 'GET', 'PATCH'),
      'x-forwarded-for': fc.constantFrom('1.2.3.4', '::1', 'garbage', '127.0.0.1, 10.0.0.1'),
      'x-forwarded-proto': fc.constantFrom('https', 'gopher', ''),
      'x-forwarded-host': fc.constantFrom('evil.example', 'a b', ''),
      origin: fc.constantFrom('https://evil.example', 'null'),
      cookie: headerText,
      range: fc.constantFrom('bytes=0-10', 'bytes=-1', 'items=0-1'),
      'if-none-match': fc.constantFrom('*', '"abc"'),
      'if-modified-since': fc.constantFrom('Sat, 01 Jan 2000 00:00:00 GMT', 'garbage'),
    },
    { requiredKeys: [] },
  )
  .map((headers) => headers as Record<string, string>);

const noHeaders = fc.constant<Record<string, string>>({});

// ---------------------------------------------------------------------------------------------------------------
// Requests

/**
 * Requests for one operation: two in five meant to get through (valid values only, known callers), the others
 * with hostile parts anywhere.
 */
export function requestArbitrary(op: Operation, ctx: GeneratorContext): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(
    { weight: 2, arbitrary: requestsOf(op, ctx, false) },
    { weight: 3, arbitrary: requestsOf(op, ctx, true) },
  );
}

function requestsOf(op: Operation, ctx: GeneratorContext, hostileMode: boolean): fc.Arbitrary<FuzzRequest> {
  const kind = kindOf(op);
  const pathParams = op.parameters.filter((p) => p.in === 'path');
  const queryParams = op.parameters.filter((p) => p.in === 'query');
  const path = fc.record(
    Object.fromEntries(pathParams.map((p) => [p.name, pathPiece(p, kind, hostileMode)])),
  ) as fc.Arbitrary<Record<string, Piece>>;
  type Pairs = Array<[string, Piece | Joined | null]>;
  const none = fc.constant<Pairs>([]);
  // each parameter is sent a quarter of the time; unknown ones now and then
  const query = fc
    .tuple(
      fc.tuple(
        ...queryParams.map((p) =>
          fc.oneof({ weight: 3, arbitrary: none }, { weight: 1, arbitrary: queryPairs(p, kind, ctx, hostileMode) }),
        ),
      ),
      hostileMode
        ? fc.oneof({ weight: 6, arbitrary: none }, { weight: 1, arbitrary: extraQuery as fc.Arbitrary<Pairs> })
        : none,
    )
    .map(([parts, extra]) => [...parts.flat(), ...extra]);
  return fc.record(
    {
      operationId: fc.constant(op.operationId as string),
      head: op.method === 'get' ? fc.integer({ min: 0, max: 4 }).map((n) => n === 0) : fc.constant(false),
      path,
      query,
      body: bodyArbitrary(op, ctx, hostileMode),
      auth: authArbitrary(op, hostileMode),
      headers: hostileMode
        ? fc.oneof({ weight: 4, arbitrary: noHeaders }, { weight: 1, arbitrary: headersArbitrary })
        : noHeaders,
    },
    { requiredKeys: ['operationId', 'head', 'path', 'query', 'auth', 'headers'] },
  ) as fc.Arbitrary<FuzzRequest>;
}

/** Requests for an operation chosen uniformly among all of them. */
export function anyRequestArbitrary(ctx: GeneratorContext): fc.Arbitrary<FuzzRequest> {
  return fc.oneof(...ctx.spec.operations.map((op) => requestArbitrary(op, ctx)));
}

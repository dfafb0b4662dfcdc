/** Slug making and configuration parsing. */
import { firstFreeSlug, makeSlug } from '../../src/domain/slugs';
import { ConfigError, loadConfig } from '../../src/config';

describe('slugs', () => {
  it.each([
    ['River Cleanup', 'river-cleanup'],
    ['  Café  Nuit!  ', 'cafe-nuit'],
    ['Ünïcödé & more', 'unicode-more'],
    ['Title with &quot;quotes&quot; &amp; amp', 'title-with-quotes-amp'], // entities dropped, as WordPress does
    ['Straße – Œuvre', 'strasse-oeuvre'],
    ['a.b/c 100%', 'a-b-c-100'],
    ['«Hello» “World” ©2025 3×4', 'hello-world-2025-3x4'],
    ['Café 東京', 'cafe-%e6%9d%b1%e4%ba%ac'],
    ['音楽 祭', '%e9%9f%b3%e6%a5%bd-%e7%a5%ad'],
    ['!!!', ''],
    ['a'.repeat(300), 'a'.repeat(200)],
  ])('%j → %j', (text, slug) => {
    expect(makeSlug(text)).toBe(slug);
  });

  it('finds the first free slug', () => {
    expect(firstFreeSlug('music', [])).toBe('music');
    expect(firstFreeSlug('music', ['music', 'music-2', 'music-4'])).toBe('music-3');
  });
});

describe('configuration', () => {
  it('has the documented defaults', () => {
    expect(loadConfig({})).toMatchObject({
      port: 8080,
      host: '0.0.0.0',
      basePath: '',
      databaseUrl: 'sqlite:./data/calendar.sqlite',
      siteTimezone: 'UTC',
      defaultLanguage: 'en',
      publicUrl: undefined,
      admin: undefined,
    });
  });

  it('reads every setting', () => {
    expect(
      loadConfig({
        PORT: '9000',
        HOST: '127.0.0.1',
        BASE_PATH: '/api/',
        DATABASE_URL: 'postgres://x/y',
        SITE_TIMEZONE: 'Europe/Amsterdam',
        DEFAULT_LANGUAGE: 'nl',
        PUBLIC_URL: 'https://calendar.example.org/',
        ADMIN_LOGIN: 'root',
        ADMIN_PASSWORD: 'pw',
      }),
    ).toMatchObject({
      port: 9000,
      host: '127.0.0.1',
      basePath: '/api',
      databaseUrl: 'postgres://x/y',
      siteTimezone: 'Europe/Amsterdam',
      defaultLanguage: 'nl',
      publicUrl: 'https://calendar.example.org',
      admin: { login: 'root', password: 'pw' },
    });
  });

  it.each([
    [{ PORT: 'eighty' }],
    [{ PORT: '70000' }],
    [{ BASE_PATH: 'api' }],
    [{ SITE_TIMEZONE: 'Mars/Olympus' }],
    [{ DEFAULT_LANGUAGE: 'xx' }],
    [{ PUBLIC_URL: 'calendar.example.org' }],
    [{ ADMIN_LOGIN: 'root' }],
  ])('refuses %j', (env) => {
    expect(() => loadConfig(env)).toThrow(ConfigError);
  });
});

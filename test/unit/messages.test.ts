/** Message catalogues: every language has every key, with the same placeholders, translated; templates interpolate. */
import { LANGUAGES } from '../../src/config';
import { message, type MessageKey } from '../../src/i18n/messages';
import { en } from '../../src/i18n/messages/en';

const keys = Object.keys(en) as MessageKey[];
const placeholders = (text: string): string[] => [...new Set([...text.matchAll(/\{(\w+)\}/g)].map((m) => m[1]))].sort();
/** The raw template: interpolating with no values leaves every `{placeholder}` as it is. */
const template = (language: (typeof LANGUAGES)[number], key: MessageKey): string => message(language, key);

describe.each(LANGUAGES)('%s catalogue', (language) => {
  it.each(keys)('%s exists, is non-empty and keeps the English placeholders', (key) => {
    const text = template(language, key);
    expect(typeof text).toBe('string');
    expect(text.trim()).not.toBe('');
    expect(placeholders(text)).toEqual(placeholders(en[key]));
  });

  if (language !== 'en') {
    it('is translated (at least 90% of the messages differ from English)', () => {
      const copied = keys.filter((key) => template(language, key) === en[key]);
      expect((keys.length - copied.length) / keys.length).toBeGreaterThanOrEqual(0.9);
    });
  }
});

describe('message()', () => {
  it('interpolates values', () => {
    expect(message('de', 'invalid_params', { names: 'a, b' })).toBe('Ungültige(r) Parameter: a, b');
    expect(message('en', 'event_not_found', { id: 42 })).toBe('Event with id 42 not found.');
  });

  it('leaves a placeholder without a value as it is', () => {
    expect(message('fr', 'rate_limited')).toContain('{seconds}');
  });
});

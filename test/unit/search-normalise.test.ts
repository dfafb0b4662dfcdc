/** The normalised form search compares (src/search/normalise.ts). */
import { indexedText, normaliseText, searchFragments, END_MARK } from '../../src/search/normalise';

describe('normaliseText', () => {
  it.each([
    ['Soirée à l’École Normale', "soiree a l'ecole normale"],
    ['München', 'munchen'],
    ['STRAẞE', 'strasse'],
    ['Straße', 'strasse'],
    ['Łódź', 'lodz'],
    ['Ærøskøbing', 'aeroskobing'],
    ['Œuvre', 'oeuvre'],
    ['ĳssel', 'ijssel'],
    ['ＴＯＫＹＯ', 'tokyo'],
    ['ﬁesta', 'fiesta'],
    ['İstanbul', 'istanbul'],
    ['ΟΔΟΣ', 'οδοσ'],
    ['Þingvellir', 'thingvellir'],
    ['Đakovo', 'dakovo'],
    ['東京の夏祭り', '東京の夏祭り'],
    ['ｶﾞｲﾄﾞ', 'ガイド'],
    ['がか', 'がか'],
    ['a\u0001b\tc', 'a b c'],
  ])('%s → %s', (text, normalised) => {
    expect(normaliseText(text)).toBe(normalised);
    expect(normaliseText(normalised)).toBe(normalised); // stable: stored text and queries agree
  });

  it('marks the end of stored fields, and never lets a query hold the mark', () => {
    expect(indexedText('Ab')).toBe(`ab${END_MARK}`);
    expect(indexedText('')).toBe('');
    expect(searchFragments(`x${END_MARK}y`, 'whole')).toEqual(['x  y']);
  });

  it('cuts searches as each resource does', () => {
    expect(searchFragments(' Rue  Édouard\u00a0Colonne ', 'words')).toEqual(['rue', 'edouard', 'colonne']);
    expect(searchFragments('100, Avenue du Temple!', 'fragments')).toEqual(['100', 'avenue', 'du', 'temple']);
    expect(searchFragments('pé-de-moleque', 'fragments')).toEqual(['pe-de-moleque']);
    expect(searchFragments('Musik & Feste', 'whole')).toEqual(['musik & feste']);
    expect(searchFragments('  ', 'words')).toEqual([]);
  });
});

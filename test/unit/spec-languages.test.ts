/** The spec in eleven languages: the same document in every language but for its texts, and real translations. */
import { LANGUAGES } from '../../src/config';
import { loadSpec } from '../../src/http/spec';
import { translatableTexts } from '../../scripts/spec-i18n';

const spec = loadSpec();
const english = translatableTexts(spec.document);

/** The document with every translatable text blanked: what must not differ between languages. */
function structure(doc: unknown): unknown {
  const copy = JSON.parse(JSON.stringify(doc));
  for (const pointer of english.keys()) {
    const keys = pointer
      .split('/')
      .slice(1)
      .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
    const last = keys.pop() as string;
    keys.reduce((node, key) => node[key], copy)[last] = '';
  }
  return copy;
}

describe.each(LANGUAGES.filter((lang) => lang !== 'en'))('the spec in %s', (language) => {
  const localised = spec.localised(language);

  it('has the same names, types, defaults and requiredness as the English one', () => {
    expect(structure(localised)).toEqual(structure(spec.document));
  });

  it('translates its texts (not English copies)', () => {
    const texts = translatableTexts(localised);
    const same = [...english].filter(([pointer, text]) => texts.get(pointer) === text && /[a-z]{4,}/.test(text));
    expect(same.length / english.size).toBeLessThan(0.05);
  });
});

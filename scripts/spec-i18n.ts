/**
 * Translations of the spec's human text. English stays in the spec (the single source of structure); each other
 * language has `openapi/i18n/<lang>.yaml`, a map from the JSON pointer of a text in the bundled document
 * (`/paths/~1events/get/summary`) to its translation. Texts are every `summary` and `description`, plus `info.title`.
 * A language file that misses a text or has one the spec lacks fails generation, so nothing ships untranslated.
 *
 * `tsx scripts/spec-i18n.ts missing <lang>` prints, as YAML, the texts a language file lacks (with the English).
 */
import fs from 'node:fs';
import path from 'node:path';
import YAML from 'yaml';

export const LANGUAGES = ['nl', 'en', 'fr', 'de', 'it', 'ja', 'nb', 'pl', 'pt-br', 'es', 'sv'] as const;
export const I18N_DIR = path.resolve(__dirname, '..', 'openapi', 'i18n');

type Json = unknown;

const escapePointer = (key: string) => key.replace(/~/g, '~0').replace(/\//g, '~1');

/** Every translatable text of the document by JSON pointer, in document order. */
export function translatableTexts(doc: Json): Map<string, string> {
  const texts = new Map<string, string>();
  const walk = (node: Json, pointer: string) => {
    if (Array.isArray(node))
      node.forEach((item, i) => {
        walk(item, `${pointer}/${i}`);
      });
    else if (node && typeof node === 'object') {
      for (const [key, value] of Object.entries(node)) {
        const here = `${pointer}/${escapePointer(key)}`;
        const isText =
          (key === 'summary' || key === 'description' || here === '/info/title') && typeof value === 'string';
        // `examples` hold sample data, not prose
        if (isText) texts.set(here, value as string);
        else if (key !== 'examples' && key !== 'example') walk(value, here);
      }
    }
  };
  walk(doc, '');
  return texts;
}

export function readTranslations(lang: string): Record<string, string> {
  const file = path.join(I18N_DIR, `${lang}.yaml`);
  if (!fs.existsSync(file)) return {};
  return (YAML.parse(fs.readFileSync(file, 'utf8')) ?? {}) as Record<string, string>;
}

/** The document in `lang`; throws listing the missing and extra keys of the language file. */
export function localise(doc: Json, lang: string): Json {
  if (lang === 'en') return doc;
  const texts = translatableTexts(doc);
  const translations = readTranslations(lang);
  const missing = [...texts.keys()].filter((key) => typeof translations[key] !== 'string' || !translations[key].trim());
  const extra = Object.keys(translations).filter((key) => !texts.has(key));
  if (missing.length || extra.length) {
    throw new Error(
      `openapi/i18n/${lang}.yaml: ${missing.length} missing (${missing.slice(0, 5).join(', ')}${missing.length > 5 ? ', …' : ''}), ` +
        `${extra.length} extra (${extra.slice(0, 5).join(', ')}${extra.length > 5 ? ', …' : ''})`,
    );
  }
  const copy = structuredClone(doc) as Record<string, unknown>;
  for (const [pointer, text] of Object.entries(translations)) set(copy, pointer, text);
  return copy;
}

function set(doc: Record<string, unknown>, pointer: string, value: string): void {
  const keys = pointer
    .split('/')
    .slice(1)
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'));
  const last = keys.pop() as string;
  const parent = keys.reduce<Record<string, unknown>>((node, key) => node[key] as Record<string, unknown>, doc);
  parent[last] = value;
}

if (require.main === module) {
  const [command, lang] = process.argv.slice(2);
  if (command !== 'missing' || !lang || lang === 'en' || !(LANGUAGES as readonly string[]).includes(lang)) {
    console.error('usage: tsx scripts/spec-i18n.ts missing <lang>');
    process.exit(2);
  }
  const doc = JSON.parse(fs.readFileSync(path.resolve(__dirname, '..', 'generated', 'openapi.json'), 'utf8'));
  const translations = readTranslations(lang);
  const missing = Object.fromEntries([...translatableTexts(doc)].filter(([key]) => !(key in translations)));
  process.stdout.write(Object.keys(missing).length ? YAML.stringify(missing, { lineWidth: 0 }) : '');
}

/**
 * Every human-readable message the service sends, by key. Codes never change with language; the text does.
 * Templates use `{name}` placeholders. English is the source (messages/en.ts); each language's catalogue must have
 * every key, which the `Catalogue` type enforces.
 */
import type { Language } from '../config';
import { de } from './messages/de';
import { en, type Catalogue, type MessageKey } from './messages/en';
import { es } from './messages/es';
import { fr } from './messages/fr';
import { it } from './messages/it';
import { ja } from './messages/ja';
import { nb } from './messages/nb';
import { nl } from './messages/nl';
import { pl } from './messages/pl';
import { ptBr } from './messages/pt-br';
import { sv } from './messages/sv';

export type { MessageKey };

const catalogues: Record<Language, Catalogue> = { nl, en, fr, de, it, ja, nb, pl, 'pt-br': ptBr, es, sv };

export function message(language: Language, key: MessageKey, values: Record<string, string | number> = {}): string {
  return catalogues[language][key].replace(/\{(\w+)\}/g, (whole, name: string) =>
    name in values ? String(values[name]) : whole,
  );
}

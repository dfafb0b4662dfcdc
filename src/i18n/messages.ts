/**
 * Every human-readable message the service sends, by key. Codes never change with language; the text does.
 * Templates use `{name}` placeholders. English is the source (messages/en.ts); each language's catalogue must have
 * every key, which the `Catalogue` type enforces.
 */
import type { Language } from '../config';
import { en, type Catalogue, type MessageKey } from './messages/en';

export type { MessageKey };

const catalogues: Partial<Record<Language, Catalogue>> = { en };

export function message(language: Language, key: MessageKey, values: Record<string, string | number> = {}): string {
  const template = catalogues[language]?.[key] ?? en[key];
  return template.replace(/\{(\w+)\}/g, (whole, name: string) => (name in values ? String(values[name]) : whole));
}

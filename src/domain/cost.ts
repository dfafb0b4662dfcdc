/** Event cost as the plugin stores and shows it (docs/compatibility.md §1.3, §4.1). */
import { makeSlug } from './slugs';

export interface CostDetails {
  currency_symbol: string;
  currency_code: string;
  currency_position: 'prefix' | 'postfix' | '';
  values: string[];
}

type Position = 'prefix' | 'postfix' | '';

/** A number in cost text: digits with '.' or ',' separators ('15', '6.50', '5,50', '1,000.50', '1.000,50'). */
const NUMBER = /\d+(?:[.,]\d+)*/g;
/** Where one price ends and the next begins inside an entry: '10 - 20', '€6.50 – €8.50', '10 to 20', '10, 20'. */
const RANGE_SEPARATOR = /\s+-\s+|\s*[–—]\s*|\s+to\s+|,\s+/i;
/** A currency symbol is short and has no spaces: '$', '€', 'R$', 'kr', 'CHF'. */
const SYMBOL = /^\S{1,4}$/u;

/**
 * '5,50' → '5.50'. The last separator is the decimal point when one or two digits follow it; every other separator
 * groups thousands ('1,000' → '1000', '1.000,50' → '1000.50'). (The plugin reads any single separator as a decimal
 * point, so '$1,000' would cost 1.)
 */
function normalise(number: string): string {
  const [, whole, decimals] = /^(.*?)(?:[.,](\d{1,2}))?$/.exec(number) as RegExpExecArray; // matches any text
  const integer = whole.replace(/[.,]/g, '').replace(/^0+(?=\d)/, '');
  return decimals === undefined ? integer : `${integer}.${decimals}`;
}

/**
 * The currency symbol and position shared by every priced part of the entries, or none when absent or mixed: as in
 * the plugin, a price without the symbol makes it mixed, so `10 - 25 USD` has none and prints with the site's `$`.
 */
function inferCurrency(entries: string[]): { symbol: string; position: Position } {
  const symbols = new Set<string>();
  const positions = new Set<Position>();
  for (const part of entries.flatMap((entry) => entry.split(RANGE_SEPARATOR))) {
    const text = part.trim();
    const rest = text.replace(NUMBER, '').trim();
    if (rest === text) continue; // no number: a word such as 'Free' or 'Donation'
    if (!SYMBOL.test(rest)) return { symbol: '', position: '' };
    symbols.add(rest);
    positions.add(text.startsWith(rest) ? 'prefix' : 'postfix');
  }
  if (symbols.size !== 1) return { symbol: '', position: '' };
  return { symbol: [...symbols][0], position: positions.size === 1 ? [...positions][0] : '' };
}

export function parseCost(input: string | number | Array<string | number>): {
  entries: string[];
  symbol: string;
  position: 'prefix' | 'postfix' | '';
} {
  const entries = (Array.isArray(input) ? input : [input])
    .filter((value) => typeof value === 'string' || Number.isFinite(value))
    .map((value) => String(value).trim())
    .filter((value) => value !== '');
  return { entries, ...inferCurrency(entries) };
}

export function costOf(
  entries: string[],
  symbol: string,
  position: 'prefix' | 'postfix' | '',
): {
  cost: string;
  cost_details: CostDetails;
} {
  // each distinct amount once, as first written; sorted by value
  const amounts = new Map<number, { text: string; value: string }>();
  for (const text of entries.flatMap((entry) => entry.match(NUMBER) ?? [])) {
    const value = normalise(text);
    if (!amounts.has(Number(value))) amounts.set(Number(value), { text, value });
  }
  const sorted = [...amounts.entries()].sort(([a], [b]) => a - b).map(([, amount]) => amount);
  const words = entries.filter((entry) => !/\d/.test(entry));
  // as in the plugin's sorted keys: numbers first, then the slugs of entries without any
  const tokens = [...new Set(words.map(makeSlug).filter(Boolean))].sort();

  const sign = symbol || '$'; // site defaults: '$' before the amount
  const show = (amount: { text: string; value: string }): string => {
    if (Number(amount.value) === 0) return 'Free';
    return position === 'postfix' ? `${amount.text}${sign}` : `${sign}${amount.text}`;
  };
  let cost = words.join(', ');
  if (sorted.length === 1) cost = show(sorted[0]);
  if (sorted.length > 1) cost = `${show(sorted[0])} – ${show(sorted[sorted.length - 1])}`;

  return {
    cost,
    cost_details: {
      currency_symbol: symbol,
      currency_code: '', // not writable through v1
      currency_position: position,
      values: [...sorted.map((amount) => amount.value), ...tokens],
    },
  };
}

/**
 * `npx tsx bench/match-sets.ts <database url> [word …]`: how long the first finding of a search's match set takes
 * (the statement a common word's first list runs), for each word in English, French and German, as an anonymous
 * caller (D64's rule applies). Each (word, language) is found once: a process memoises its sets.
 */
import { performance } from 'node:perf_hooks';
import { createDb } from '../src/db/knex';
import { prepareSearch } from '../src/search/predicate';
import { unlockedRule } from '../src/resources/events/access';

const [url, ...words] = process.argv.slice(2);
const WORDS = words.length ? words : ['jazz', 'summer', 'festival', 'concert', 'night'];
const LANGUAGES = ['en', 'fr', 'de'];

async function main(): Promise<void> {
  const db = createDb(url);
  const anonymous = unlockedRule(undefined, undefined);
  for (const word of WORDS) {
    const times: string[] = [];
    let size = 0;
    for (const language of LANGUAGES) {
      const started = performance.now();
      const search = await prepareSearch(db, 'event', word, language, anonymous);
      times.push(`${language} ${(performance.now() - started).toFixed(1)} ms`);
      size = search?.ids?.length ?? 0;
    }
    console.log(`${word.padEnd(10)} ${String(size).padStart(7)} matches  ${times.join('  ')}`);
  }
  await db.destroy();
}

void main();

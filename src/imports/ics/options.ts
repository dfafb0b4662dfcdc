/** What an `import ics` run is asked to do, and what it reports. */
import type { Language } from '../../config';
import type { Caller } from '../../users/roles';

export interface IcsImportOptions {
  /** Identifies the feed (its URL or file path): UIDs are matched within it, and `--sync` trashes within it. */
  source: string;
  author: Caller;
  /** Status of every imported event (default: `private` for CLASS:PRIVATE, else `publish`). */
  status?: string;
  /** A category (name) added to every imported event. */
  category?: string;
  dryRun?: boolean;
  /** Trash the events a previous run imported from this source that the feed no longer has. */
  sync?: boolean;
  language: Language;
  /**
   * More URLs this site is known by (`--site`), beside PUBLIC_URL (else the listening address): UIDs naming any of
   * them are this site's own events, updated rather than copied.
   */
  sites?: string[];
}

export interface ImportSummary {
  created: number;
  updated: number;
  unchanged: number;
  skipped: Array<{ line: number; uid?: string; reason: string }>;
  /** Events imported from this source before that the feed no longer has (trashed with --sync). */
  removed: Array<{ uid: string; id: number; trashed: boolean }>;
  notes: string[];
}

/**
 * Types of the one locutus module we use. locutus is held on its 2.0 line, whose `engines` admit the Node.js versions
 * we claim (docs/decisions.md D87); that line ships no types (the 3.0 line, Node 22 only, declares this same shape).
 */
declare module 'locutus/php/datetime/strtotime' {
  /** Seconds since the epoch of `text` read as PHP's strtotime reads it, relative to `now` (seconds); false if unread. */
  export default function strtotime(text: string, now?: number): number | false;
}

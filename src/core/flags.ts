/** Normalising of parameter values the spec lets through in several forms. */

/** The spec's `Flag` (`true`/`false` in any case, `1`/`0`, and those as strings) as a boolean. */
export function isTrue(flag: unknown): boolean {
  return flag === true || flag === 1 || (typeof flag === 'string' && (flag === '1' || flag.toLowerCase() === 'true'));
}

/** The plugin's loose truthiness for text flags (`strict_dates`, `has_events`, venue `show_map`…). */
export function isTruthyText(value: unknown): boolean {
  return (
    value === true ||
    value === 1 ||
    ['1', 'true', 'yes', 'y', 'on', 'enable', 'enabled'].includes(String(value).trim().toLowerCase())
  );
}

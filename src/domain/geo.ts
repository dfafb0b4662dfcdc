/** Coordinates are kept to seven decimals (about a centimetre): enough for a venue, and never a denormal number
 * that would underflow PostgreSQL's distance arithmetic. */
export function roundCoordinate(degrees: number): number {
  return Math.round(degrees * 1e7) / 1e7;
}

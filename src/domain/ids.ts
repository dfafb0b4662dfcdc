/** Record ids are 32-bit on both engines (PostgreSQL `integer`): the spec caps typed ids; text ids go through here. */
export const MAX_ID = 2_147_483_647;

/** The id a number or a digit string names, or undefined when it cannot name a record (0, negative, too large). */
export function asId(value: unknown): number | undefined {
  const id = typeof value === 'number' ? value : typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : NaN;
  return Number.isInteger(id) && id >= 1 && id <= MAX_ID ? id : undefined;
}

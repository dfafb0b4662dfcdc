/**
 * The field tables (src/kinds/fields/) give every list derived from them the values they had when they were kept
 * by hand: the search documents' columns are stored data, and the wire names must all be keys the plugin's shapes
 * already carry (the mapper appends the others).
 */
import fs from 'node:fs';
import path from 'node:path';
import { EVENT_FIELDS } from '../../src/kinds/fields/events';
import { extendTable, type FieldTable } from '../../src/kinds/fields/table';
import { PROTECTED_FIELDS, SEARCH_FIELDS } from '../../src/search/documents';
import { POST_FIELDS } from '../../src/resources/translations';
import { ORGANIZERS, VENUES } from '../../src/resources/linked/kinds';

const spec = JSON.parse(fs.readFileSync(path.join(__dirname, '../../generated/openapi.json'), 'utf8'));

describe('field tables', () => {
  it('keep the search documents column by column', () => {
    expect(SEARCH_FIELDS).toEqual({
      event: ['title', 'excerpt', 'content'],
      venue: ['title', 'content', 'excerpt', 'address', 'city', 'province', 'state', 'stateprovince', 'zip', 'phone'],
      organizer: ['title', 'content', 'excerpt', 'phone', 'email', 'website'],
      term: ['name', 'slug'],
    });
    expect(PROTECTED_FIELDS).toEqual({ event: ['excerpt', 'content'] });
  });

  it('keep the translatable fields and the linked kinds’ text and duplicate fields', () => {
    expect(POST_FIELDS).toEqual(['title', 'content', 'excerpt']);
    expect(VENUES.textFields.join()).toBe('address,city,country,province,state,zip,phone,stateprovince,website');
    // the order of a duplicate's conditions does not matter: one SQL `and` of them all
    expect([...VENUES.duplicateFields].sort().join()).toBe('address,city,phone,province,state,stateprovince,zip');
    expect(ORGANIZERS.textFields).toEqual(['phone', 'website', 'email']);
    expect(ORGANIZERS.duplicateFields).toEqual(['phone', 'website', 'email']);
  });

  it('name only wire keys the event shape has, so the mapper appends nothing today', () => {
    const keys = Object.keys(spec.components.schemas.Event.properties);
    const wires = Object.values(EVENT_FIELDS as FieldTable).flatMap((field) => (field.wire ? [field.wire] : []));
    expect(wires.filter((wire) => !keys.includes(wire))).toEqual([]);
  });

  it('refuse a field added once a derivation has read the table', () => {
    expect(() => extendTable(EVENT_FIELDS as FieldTable, 'late', { table: 'events', value: 'text' })).toThrow(
      /after the table was read/,
    );
  });
});

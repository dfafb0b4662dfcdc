/** The capability table of docs/compatibility.md §3.1 and WordPress's object rules. */
import { can, canChange, canRead, POST_TYPES, type Caller, type Role } from '../../src/users/roles';

const user = (role: Role, id = 1): Caller => ({ id, login: role, role });

describe('capabilities', () => {
  it('are named by the post types, the post kinds of the registry (src/kinds/)', () => {
    expect(POST_TYPES).toEqual(['events', 'venues', 'organizers']);
  });

  it.each([
    ['administrator', true, true, true],
    ['editor', true, true, true],
    ['author', true, true, false],
    ['contributor', true, false, false],
    ['subscriber', false, false, false],
  ] as const)('%s: edit_events %s, publish_events %s, manage_categories %s', (role, edit, publish, manage) => {
    expect(can(user(role), 'edit_events')).toBe(edit);
    expect(can(user(role), 'edit_venues')).toBe(edit);
    expect(can(user(role), 'publish_events')).toBe(publish);
    expect(can(user(role), 'manage_categories')).toBe(manage);
  });

  it('gives anonymous callers nothing', () => {
    expect(can(undefined, 'read_events')).toBe(false);
  });
});

describe('object rules', () => {
  const own = (status: string) => ({ authorId: 1, status });
  const others = (status: string) => ({ authorId: 2, status });

  it('lets contributors change only their own unpublished records', () => {
    const c = user('contributor');
    expect(canChange(c, 'edit', 'events', own('draft'))).toBe(true);
    expect(canChange(c, 'edit', 'events', own('pending'))).toBe(true);
    expect(canChange(c, 'edit', 'events', own('publish'))).toBe(false);
    expect(canChange(c, 'delete', 'events', own('future'))).toBe(false);
    expect(canChange(c, 'edit', 'events', others('draft'))).toBe(false);
  });

  it("lets authors change their own records in any status but not others'", () => {
    const a = user('author');
    expect(canChange(a, 'edit', 'venues', own('publish'))).toBe(true);
    expect(canChange(a, 'delete', 'venues', own('publish'))).toBe(true);
    expect(canChange(a, 'edit', 'venues', others('draft'))).toBe(false);
  });

  it('lets editors change anything', () => {
    expect(canChange(user('editor'), 'edit', 'organizers', others('private'))).toBe(true);
    expect(canChange(user('editor'), 'delete', 'organizers', others('publish'))).toBe(true);
  });

  it('lets everyone read published records and only the right people read the rest', () => {
    expect(canRead(undefined, 'events', others('publish'))).toBe(true);
    expect(canRead(undefined, 'events', others('draft'))).toBe(false);
    expect(canRead(user('subscriber'), 'events', others('private'))).toBe(false);
    expect(canRead(user('contributor'), 'events', own('draft'))).toBe(true);
    expect(canRead(user('contributor'), 'events', others('draft'))).toBe(false);
    expect(canRead(user('editor'), 'events', others('private'))).toBe(true);
  });
});

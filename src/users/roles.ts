/**
 * The five WordPress roles and their capabilities (docs/compatibility.md §3.1). Events, venues and organizers each get
 * the same set of post capabilities; terms are managed with `manage_categories`. Every permission check in the service
 * goes through `can` (coarse, before validation) and the object rules below (per record, in the handlers).
 */
import { KIND_NAMES, KINDS, type Kind, type KindIn } from '../kinds/registry';
import type { AppPasswordUse } from './app-passwords';

export const ROLES = ['administrator', 'editor', 'author', 'contributor', 'subscriber'] as const;
export type Role = (typeof ROLES)[number];

type PostKind = KindIn<'posts'>;
/** The post types, named as their capabilities are (`edit_events`): the post kinds' (src/kinds/). */
export type PostTypePlural = (typeof KINDS)[PostKind]['capability'];
const isPostKind = (kind: Kind): kind is PostKind => KINDS[kind].table === 'posts';
export const POST_TYPES: readonly PostTypePlural[] = KIND_NAMES.filter(isPostKind).map(
  (kind) => KINDS[kind].capability,
);

const POST_CAPS = [
  'read',
  'read_private',
  'edit',
  'edit_others',
  'edit_private',
  'edit_published',
  'delete',
  'delete_others',
  'delete_private',
  'delete_published',
  'publish',
] as const;
type PostCap = (typeof POST_CAPS)[number];

/**
 * A capability name: `edit_events`, `publish_venues`, `manage_categories`… `manage_options` (administrators): site
 * settings such as webhooks; `manage_app_passwords` (every role): managing application passwords, one's own; whose,
 * is the handler's rule (users/handlers.ts).
 */
export type Capability =
  | `${PostCap}_${PostTypePlural}`
  | 'manage_categories'
  | 'upload_files'
  | 'manage_options'
  | 'manage_app_passwords';

const POST_CAPS_BY_ROLE: Record<Role, readonly PostCap[]> = {
  administrator: POST_CAPS,
  editor: POST_CAPS,
  author: ['read', 'edit', 'edit_published', 'delete', 'delete_published', 'publish'],
  contributor: ['read', 'edit', 'delete'],
  subscriber: ['read'],
};

const CAPABILITIES: Record<Role, ReadonlySet<Capability>> = Object.fromEntries(
  ROLES.map((role) => {
    const caps: Capability[] = POST_TYPES.flatMap((type) =>
      POST_CAPS_BY_ROLE[role].map((cap) => `${cap}_${type}` as Capability),
    );
    if (role === 'administrator' || role === 'editor') caps.push('manage_categories');
    if (role === 'administrator' || role === 'editor' || role === 'author') caps.push('upload_files');
    if (role === 'administrator') caps.push('manage_options'); // site settings: webhooks
    caps.push('manage_app_passwords');
    return [role, new Set(caps)];
  }),
) as unknown as Record<Role, ReadonlySet<Capability>>;

export interface Caller {
  id: number;
  login: string;
  role: Role;
  /** Set when the caller authenticated with one of their application passwords (never the secret). */
  appPassword?: AppPasswordUse;
  /** The client address (audit trail). */
  address?: string;
  /** How the write arrives (audit trail); `api` when unset. */
  via?: 'api' | 'cli' | 'import';
}

export function isCapability(value: string): value is Capability {
  return (
    value === 'manage_categories' ||
    value === 'upload_files' ||
    value === 'manage_options' ||
    value === 'manage_app_passwords' ||
    POST_TYPES.some((type) => POST_CAPS.some((cap) => value === `${cap}_${type}`))
  );
}

/** Whether the caller (undefined = anonymous) holds the capability. */
export function can(caller: Caller | undefined, capability: Capability): boolean {
  return caller !== undefined && CAPABILITIES[caller.role].has(capability);
}

/** What the object rules need to know about a post-like record. */
export interface OwnedRecord {
  authorId: number | null;
  status: string;
}

const PUBLISHED = new Set(['publish', 'future']);

/** WordPress `map_meta_cap` for edit_post / delete_post on one record. */
export function canChange(
  caller: Caller | undefined,
  verb: 'edit' | 'delete',
  type: PostTypePlural,
  record: OwnedRecord,
): boolean {
  if (!caller || !can(caller, `${verb}_${type}`)) return false;
  const own = record.authorId === caller.id;
  const needed: Capability[] = [];
  if (!own) needed.push(`${verb}_others_${type}`);
  if (PUBLISHED.has(record.status)) needed.push(`${verb}_published_${type}`);
  if (record.status === 'private') needed.push(`${verb}_private_${type}`);
  return needed.every((cap) => can(caller, cap));
}

/** WordPress `read_post`: published records are public; others need ownership or the edit/private rights. */
export function canRead(caller: Caller | undefined, type: PostTypePlural, record: OwnedRecord): boolean {
  if (record.status === 'publish') return true;
  if (!caller) return false;
  if (record.status === 'private')
    return can(caller, `read_private_${type}`) || (record.authorId === caller.id && can(caller, `edit_${type}`));
  return canChange(caller, 'edit', type, record);
}

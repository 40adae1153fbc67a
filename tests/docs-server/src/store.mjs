// In-memory state of the fake Docs backend: users, sessions, documents, rights.
// Abilities follow Docs' Document.get_abilities (for root documents).
import { createHash, randomBytes, randomUUID } from 'node:crypto';

export const LINK_REACHES = ['restricted', 'authenticated', 'public'];
export const LINK_ROLES = ['reader', 'commenter', 'editor'];
export const ROLES = ['reader', 'commenter', 'editor', 'administrator', 'owner'];

const rolePriority = (role) => (role ? ROLES.indexOf(role) + 1 : 0);
const maxRole = (a, b) => (rolePriority(a) >= rolePriority(b) ? a : b) || null;

const UUID_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const UUID4_RE = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/i;
export const isUuid = (s) => typeof s === 'string' && UUID_RE.test(s);
export const isUuid4 = (s) => typeof s === 'string' && UUID4_RE.test(s);

export const randomToken = (n = 32) => {
  const alphabet = 'abcdefghijklmnopqrstuvwxyz0123456789';
  const bytes = randomBytes(n);
  let out = '';
  for (const b of bytes) out += alphabet[b % alphabet.length];
  return out;
};

export class Store {
  /** `contentAbilities: false`: no `content_retrieve`/`content_patch` abilities (Docs with yhub). */
  constructor({ contentAbilities = true } = {}) {
    this.contentAbilities = contentAbilities;
    this.users = new Map(); // id -> user
    this.sessions = new Map(); // key -> { userId|null, csrf|null, oidcStates: Map state -> next }
    this.documents = new Map(); // id -> doc
    this.pathCounter = 0;
  }

  // ---- users & sessions ----
  createUser({ email, full_name }) {
    const id = randomUUID();
    const local = String(email || '').split('@')[0];
    const user = {
      id,
      email: email || `${id}@example.com`,
      full_name: full_name || '',
      short_name: (full_name || '').split(' ')[0] || local,
      language: 'en-us',
    };
    this.users.set(id, user);
    return user;
  }

  createSession(userId = null) {
    const key = randomToken(32);
    const session = { key, userId, csrf: userId ? randomToken(32) : null, oidcStates: new Map() };
    this.sessions.set(key, session);
    return session;
  }

  /** The user with this email (case-insensitive), or null. */
  userByEmail(email) {
    const wanted = String(email).toLowerCase();
    for (const user of this.users.values()) if (user.email.toLowerCase() === wanted) return user;
    return null;
  }

  /** The user of a session key, or null (anonymous). */
  userForSession(key) {
    const s = key ? this.sessions.get(key) : null;
    return s && s.userId ? this.users.get(s.userId) || null : null;
  }

  // ---- documents ----
  createDocument({ id, title, link_reach, link_role, creator_id, content_b64 }) {
    const now = new Date().toISOString();
    this.pathCounter += 1;
    const doc = {
      id: id || randomUUID(),
      title: title ?? null,
      excerpt: null,
      link_reach: link_reach || 'restricted',
      link_role: link_role || 'reader',
      creator: creator_id || null,
      created_at: now,
      updated_at: now,
      deleted_at: null,
      depth: 1,
      path: this.pathCounter.toString(36).padStart(7, '0'),
      numchild: 0,
      accesses: new Map(), // userId -> role
      favorites: new Set(), // userIds
      linkTraces: new Set(), // userIds
      content: content_b64 || '',
      contentVersion: 0,
    };
    this.documents.set(doc.id, doc);
    return doc;
  }

  touch(doc) {
    doc.updated_at = new Date().toISOString();
  }

  setContent(doc, b64) {
    doc.content = b64 || '';
    doc.contentVersion += 1;
    this.touch(doc);
  }

  etag(doc) {
    if (!doc.content) return null;
    return `"${createHash('md5').update(doc.content).digest('hex')}"`;
  }

  getRole(doc, user) {
    if (!user) return null;
    return doc.accesses.get(user.id) || null;
  }

  computedLink(doc) {
    // Root documents only: the equivalent link definition is the document's own.
    return {
      link_reach: doc.link_reach,
      link_role: doc.link_reach === 'restricted' ? null : doc.link_role,
    };
  }

  abilities(doc, user) {
    const authenticated = Boolean(user);
    let role = this.getRole(doc, user);
    const isOwner = role === 'owner';
    const isOwnerOrAdmin = isOwner || role === 'administrator';
    const hasAccessRole = Boolean(role);
    const canUpdateFromAccess = isOwnerOrAdmin || role === 'editor';
    const canLeave =
      authenticated &&
      ((hasAccessRole && !isOwnerOrAdmin) || (!hasAccessRole && doc.linkTraces.has(user.id)));

    const link = this.computedLink(doc);
    if (link.link_reach === 'public' || (link.link_reach === 'authenticated' && authenticated)) {
      role = maxRole(role, link.link_role);
    }
    const canGet = Boolean(role);
    const retrieve = canGet || isOwner;
    const canUpdate = isOwnerOrAdmin || role === 'editor';
    const canComment = canUpdate || role === 'commenter';
    const canCreateChildren = canUpdate && authenticated;
    const canDestroy = isOwner; // root document
    const aiAccess = canUpdate && authenticated;
    const linkSelectOptions = {
      restricted: null,
      authenticated: [...LINK_ROLES],
      public: [...LINK_ROLES],
    };
    const abilities = {
      accesses_manage: isOwnerOrAdmin,
      accesses_view: hasAccessRole,
      ai_proxy: aiAccess,
      ai_transform: aiAccess,
      ai_translate: aiAccess,
      attachment_upload: canUpdate,
      media_check: canGet,
      can_edit: canUpdate,
      children_list: canGet,
      children_create: canCreateChildren,
      collaboration_auth: canGet,
      comment: canComment,
      formatted_content: canGet,
      content_patch: canUpdate,
      content_retrieve: retrieve,
      cors_proxy: canGet,
      descendants: canGet,
      destroy: canDestroy,
      duplicate: canGet && authenticated,
      favorite: canGet && authenticated,
      link_configuration: isOwnerOrAdmin,
      invite_owner: isOwner,
      leave: canLeave,
      move: isOwnerOrAdmin,
      partial_update: canUpdate,
      restore: false,
      retrieve,
      media_auth: canGet,
      link_select_options: linkSelectOptions,
      tree: retrieve,
      update: canUpdate,
      versions_destroy: isOwnerOrAdmin,
      versions_list: hasAccessRole,
      versions_retrieve: hasAccessRole,
      search: canGet,
    };
    if (!this.contentAbilities) {
      delete abilities.content_patch;
      delete abilities.content_retrieve;
    }
    return abilities;
  }

  /** Docs' ListDocumentSerializer / DocumentSerializer representation. */
  serialize(doc, user, { withContent = false } = {}) {
    const link = this.computedLink(doc);
    const out = {
      id: doc.id,
      abilities: this.abilities(doc, user),
      ancestors_link_reach: null,
      ancestors_link_role: null,
      computed_link_reach: link.link_reach,
      computed_link_role: link.link_role,
      created_at: doc.created_at,
      creator: doc.creator,
      deleted_at: doc.deleted_at,
      depth: doc.depth,
      excerpt: doc.excerpt,
      is_favorite: Boolean(user && doc.favorites.has(user.id)),
      link_role: doc.link_role,
      link_reach: doc.link_reach,
      nb_accesses_ancestors: doc.accesses.size,
      nb_accesses_direct: doc.accesses.size,
      numchild: doc.numchild,
      path: doc.path,
      title: doc.title,
      updated_at: doc.updated_at,
      user_role: this.getRole(doc, user),
    };
    if (withContent) out.content = doc.content || null;
    return out;
  }

  /** Documents listed for a user: explicit access, or visited by link and not restricted. */
  listFor(user) {
    if (!user) return [];
    return [...this.documents.values()].filter(
      (d) =>
        !d.deleted_at &&
        (d.accesses.has(user.id) || (d.linkTraces.has(user.id) && d.link_reach !== 'restricted')),
    );
  }
}

// The fake Docs backend REST API under /api/v1.0/ (Django REST Framework-like).
import { isValidYjsUpdate } from './content.mjs';
import { notFoundPage, parseCookies, readJson, send } from './http.mjs';
import { versionAtLeast } from './version.mjs';
import { isUuid, LINK_REACHES, LINK_ROLES } from './store.mjs';
import { createThreads } from './threads.mjs';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);
const SESSION_COOKIE = 'docs_sessionid';
const SESSION_AGE = 12 * 3600;
const NO_WEBSOCKET_CACHE_TIMEOUT_MS = 120 * 1000;

const NOT_AUTHENTICATED = { detail: 'Authentication credentials were not provided.' };
const PERMISSION_DENIED = { detail: 'You do not have permission to perform this action.' };
const DOC_NOT_FOUND = { detail: 'No Document matches the given query.' };

const B64_RE = /^[A-Za-z0-9+/]*={0,2}$/;

class HttpError extends Error {
  constructor(status, body, headers = {}) {
    super(typeof body === 'object' ? JSON.stringify(body) : String(body));
    this.status = status;
    this.body = body;
    this.headers = headers;
  }
}

export function createApi({ store, opts, state, stats, collab }) {
  // Docs' next major (yhub): the collaboration server persists the content itself.
  const yhub = opts.collaboration === 'yhub';
  const throttleHistory = new Map(); // key -> [timestamps ms], oldest last
  const noWebsocketEditors = new Map(); // docId -> { sessionKey, until }

  const denied = (ctx) =>
    ctx.user
      ? new HttpError(403, PERMISSION_DENIED)
      : new HttpError(401, NOT_AUTHENTICATED, { 'WWW-Authenticate': 'Session' });

  const requireUser = (ctx) => {
    if (!ctx.user) throw denied(ctx);
  };

  const getDoc = (ctx, id, ability) => {
    const doc = isUuid(id) ? store.documents.get(id.toLowerCase()) : null;
    if (!doc || doc.deleted_at) throw new HttpError(404, DOC_NOT_FOUND);
    if (ability && !store.abilities(doc, ctx.user)[ability]) throw denied(ctx);
    return doc;
  };

  // ---- CSRF (Django's CsrfViewMiddleware as enforced by DRF SessionAuthentication) ----
  const csrfFailure = (ctx) => {
    const { req } = ctx;
    const origin = req.headers.origin;
    if (origin !== undefined) {
      if (!state.allowedOrigins.includes(origin)) {
        return `Origin checking failed - ${origin} does not match any trusted origins.`;
      }
    } else {
      const referer = req.headers.referer;
      if (!referer) return 'Referer checking failed - no Referer.';
      let refOrigin = null;
      try {
        refOrigin = new URL(referer).origin;
      } catch {
        return 'Referer checking failed - Referer is malformed.';
      }
      if (!state.allowedOrigins.includes(refOrigin)) {
        return `Referer checking failed - ${referer} does not match any trusted origins.`;
      }
    }
    const cookieToken = ctx.cookies.csrftoken;
    if (!cookieToken) return 'CSRF cookie not set.';
    const headerToken = req.headers['x-csrftoken'];
    if (!headerToken) return 'CSRF token missing.';
    if (headerToken !== cookieToken) return 'CSRF token incorrect.';
    return null;
  };

  // ---- throttling ----
  const throttledError = (wait) => {
    const secs = Math.max(0, Math.ceil(wait));
    stats.throttled += 1;
    return new HttpError(
      429,
      { detail: `Request was throttled. Expected available in ${secs} second${secs === 1 ? '' : 's'}.` },
      { 'Retry-After': String(secs) },
    );
  };

  const checkRateThrottle = (ctx) => {
    const rate = opts.throttleRate;
    if (!rate || rate <= 0) return;
    const key = ctx.user
      ? `user:${ctx.user.id}`
      : ctx.sessionKeyFromRequest
        ? `session:${ctx.sessionKeyFromRequest}`
        : `ip:${ctx.req.socket.remoteAddress}`;
    const now = Date.now();
    const duration = 60_000;
    const history = (throttleHistory.get(key) || []).filter((t) => t > now - duration);
    if (history.length >= rate) {
      throttleHistory.set(key, history);
      const remaining = duration - (now - history[history.length - 1]);
      throw throttledError(remaining / 1000);
    }
    history.unshift(now);
    throttleHistory.set(key, history);
  };

  // ---- Docs' "can the user edit without being on the websocket" rule ----
  const canEditWithoutWebsocket = (ctx, doc) => {
    const sessionKey = ctx.sessionKeyFromRequest || null;
    const { count, exists } = collab.connectionInfo(doc.id, sessionKey);
    if (count === 0) {
      const now = Date.now();
      const current = noWebsocketEditors.get(doc.id);
      if (!current || current.until < now || current.sessionKey === sessionKey) {
        noWebsocketEditors.set(doc.id, { sessionKey, until: now + NO_WEBSOCKET_CACHE_TIMEOUT_MS });
        return true;
      }
      return false;
    }
    return exists;
  };

  // ---- pagination ----
  const paginate = (ctx, items, serialize) => {
    const q = ctx.url.searchParams;
    let pageSize = 20;
    if (q.has('page_size')) {
      const n = Number.parseInt(q.get('page_size'), 10);
      if (Number.isFinite(n) && n > 0) pageSize = Math.min(n, 200);
    }
    let page = 1;
    if (q.has('page')) {
      const raw = q.get('page');
      const n = raw === 'last' ? Math.max(1, Math.ceil(items.length / pageSize)) : Number(raw);
      if (!Number.isInteger(n) || n < 1) throw new HttpError(404, { detail: 'Invalid page.' });
      page = n;
    }
    const pages = Math.max(1, Math.ceil(items.length / pageSize));
    if (page > pages) throw new HttpError(404, { detail: 'Invalid page.' });
    const pageUrl = (p) => {
      const u = new URL(ctx.url.pathname + ctx.url.search, state.origin);
      if (p === 1) u.searchParams.delete('page');
      else u.searchParams.set('page', String(p));
      return u.toString();
    };
    return {
      count: items.length,
      next: page < pages ? pageUrl(page + 1) : null,
      previous: page > 1 ? pageUrl(page - 1) : null,
      results: items.slice((page - 1) * pageSize, page * pageSize).map(serialize),
    };
  };

  const truthy = (v) => ['true', '1', 'True', 'yes', 'on'].includes(v);
  const falsy = (v) => ['false', '0', 'False', 'no', 'off'].includes(v);

  const orderDocs = (ctx, docs) => {
    const raw = ctx.url.searchParams.get('ordering');
    const allowed = ['created_at', 'updated_at', 'title'];
    let terms = (raw || '')
      .split(',')
      .map((s) => s.trim())
      .filter((t) => allowed.includes(t.replace(/^-/, '')));
    if (terms.length === 0) terms = ['-updated_at'];
    return [...docs].sort((a, b) => {
      for (const term of terms) {
        const desc = term.startsWith('-');
        const field = term.replace(/^-/, '');
        const va = a[field] ?? '';
        const vb = b[field] ?? '';
        if (va < vb) return desc ? 1 : -1;
        if (va > vb) return desc ? -1 : 1;
      }
      return 0;
    });
  };

  const titleMatches = (doc, needle) =>
    !needle || (doc.title || '').toLowerCase().includes(needle.toLowerCase());

  // ---- handlers ----
  const config = () => {
    if (state.configMissing) throw new HttpError(404, { detail: 'Not found.' });
    return configBody();
  };
  const configBody = () => ({
    status: 200,
    body: {
      AI_BOT: { name: 'Docs AI', color: '#8bc6ff' },
      AI_FEATURE_ENABLED: false,
      API_USERS_SEARCH_QUERY_MIN_LENGTH: 3,
      COLLABORATION_WS_URL: state.collaborationUrlUnset
        ? null
        : yhub
          ? `${state.origin.replace(/^http/, 'ws')}/collaboration/ws/v1/docs`
          : `${state.origin.replace(/^http/, 'ws')}/collaboration/ws/`,
      ...(yhub ? {} : { COLLABORATION_WS_NOT_CONNECTED_READ_ONLY: true }),
      CONVERSION_FILE_EXTENSIONS_ALLOWED: ['.docx', '.md'],
      CONVERSION_FILE_MAX_SIZE: 20971520,
      CRISP_WEBSITE_ID: null,
      ENVIRONMENT: 'test',
      FRONTEND_CSS_URL: null,
      FRONTEND_HOMEPAGE_FEATURE_ENABLED: false,
      FRONTEND_THEME: null,
      LANGUAGES: [
        ['en-us', 'English'],
        ['fr-fr', 'Français'],
      ],
      LANGUAGE_CODE: 'en-us',
      MEDIA_BASE_URL: state.origin,
      POSTHOG_KEY: null,
      RELEASE_VERSION: opts.docsVersion,
      SENTRY_DSN: null,
      TRASHBIN_CUTOFF_DAYS: 30,
    },
  });

  const usersMe = (ctx) => {
    requireUser(ctx);
    const u = ctx.user;
    return {
      status: 200,
      body: { id: u.id, email: u.email, full_name: u.full_name, short_name: u.short_name, language: u.language },
    };
  };

  const listDocuments = (ctx) => {
    const q = ctx.url.searchParams;
    let docs = store.listFor(ctx.user);
    docs = docs.filter((d) => titleMatches(d, q.get('title')) && titleMatches(d, q.get('q')));
    const fav = q.get('is_favorite');
    if (fav !== null && ctx.user) {
      if (truthy(fav)) docs = docs.filter((d) => d.favorites.has(ctx.user.id));
      else if (falsy(fav)) docs = docs.filter((d) => !d.favorites.has(ctx.user.id));
    }
    const mine = q.get('is_creator_me');
    if (mine !== null && ctx.user) {
      if (truthy(mine)) docs = docs.filter((d) => d.creator === ctx.user.id);
      else if (falsy(mine)) docs = docs.filter((d) => d.creator !== ctx.user.id);
    }
    docs = orderDocs(ctx, docs);
    return { status: 200, body: paginate(ctx, docs, (d) => store.serialize(d, ctx.user)) };
  };

  const searchDocuments = (ctx) => {
    const qv = ctx.url.searchParams.get('q');
    if (qv === null) throw new HttpError(400, { q: ['This field is required.'] });
    let docs = store.listFor(ctx.user).filter((d) => titleMatches(d, qv));
    docs = orderDocs(ctx, docs);
    return {
      status: 200,
      body: paginate(ctx, docs, (d) => ({ ...store.serialize(d, ctx.user), parent: null })),
    };
  };

  const favoriteList = (ctx) => {
    requireUser(ctx);
    const docs = [...store.documents.values()]
      .filter((d) => !d.deleted_at && d.favorites.has(ctx.user.id))
      .sort((a, b) => (a.updated_at < b.updated_at ? 1 : a.updated_at > b.updated_at ? -1 : 0));
    return { status: 200, body: paginate(ctx, docs, (d) => store.serialize(d, ctx.user)) };
  };

  // Docs' DocumentSerializer, for a document and a sub-page alike: on POST, `id` may be
  // given (a UUID of version 1, 3, 4 or 5 not taken yet), `title` at most 255 characters.
  const creation = (body) => {
    const errors = {};
    let id;
    if (body.id !== undefined && body.id !== null) {
      if (!isUuid(String(body.id))) errors.id = ['Must be a valid UUID.'];
      else if (!'1345'.includes(String(body.id)[14])) errors.id = ['The provided ID is not a valid UUID.'];
      else if (store.documents.has(String(body.id).toLowerCase()))
        errors.id = ['A document with this ID already exists. You cannot override it.'];
      else id = String(body.id).toLowerCase();
    }
    if (body.title !== undefined && body.title !== null) {
      if (typeof body.title !== 'string') errors.title = ['Not a valid string.'];
      else if (body.title.length > 255) errors.title = ['Ensure this field has no more than 255 characters.'];
    }
    if (Object.keys(errors).length) throw new HttpError(400, errors);
    return id;
  };

  const createDocument = async (ctx) => {
    requireUser(ctx);
    const body = await jsonBody(ctx);
    const id = creation(body);
    const doc = store.createDocument({
      id,
      title: body.title ?? null,
      link_reach: 'restricted',
      link_role: 'reader',
      creator_id: ctx.user.id,
    });
    doc.accesses.set(ctx.user.id, 'owner');
    return { status: 201, body: store.serialize(doc, ctx.user) };
  };

  const retrieveDocument = (ctx, id) => {
    const doc = getDoc(ctx, id, 'retrieve');
    if (ctx.user) doc.linkTraces.add(ctx.user.id);
    return { status: 200, body: store.serialize(doc, ctx.user, { withContent: opts.legacyContent }) };
  };

  const validateContentPayload = (body) => {
    const errors = {};
    if (body.content === undefined || body.content === null) {
      errors.content = body.content === null ? ['This field may not be null.'] : ['This field is required.'];
    } else if (typeof body.content !== 'string') {
      errors.content = ['Not a valid string.'];
    } else if (body.content.length === 0) {
      errors.content = ['This field may not be blank.'];
    } else if (!B64_RE.test(body.content) || body.content.length % 4 !== 0) {
      errors.content = ['Invalid base64 content.'];
    }
    if (body.websocket !== undefined && typeof body.websocket !== 'boolean') {
      errors.websocket = ['Must be a valid boolean.'];
    }
    return errors;
  };

  const writeContent = (ctx, doc, body) => {
    if (
      body.websocket !== true &&
      !canEditWithoutWebsocket(ctx, doc)
    ) {
      throw new HttpError(403, { detail: 'You are not allowed to edit this document.' });
    }
    const bytes = Buffer.from(body.content, 'base64');
    if (!isValidYjsUpdate(bytes)) throw new HttpError(400, 'invalid yjs document');
    store.setContent(doc, body.content);
    stats.content_patches[doc.id] = (stats.content_patches[doc.id] || 0) + 1;
    if (body.websocket !== true) {
      stats.saves_off_websocket[doc.id] = (stats.saves_off_websocket[doc.id] || 0) + 1;
    }
  };

  const updateDocument = async (ctx, id) => {
    const doc = getDoc(ctx, id, ctx.method === 'PUT' ? 'update' : 'partial_update');
    const body = await jsonBody(ctx);
    const errors = {};
    if (body.title !== undefined && body.title !== null) {
      if (typeof body.title !== 'string') errors.title = ['Not a valid string.'];
      else if (body.title.length > 255) errors.title = ['Ensure this field has no more than 255 characters.'];
    }
    if (body.excerpt !== undefined && body.excerpt !== null && typeof body.excerpt !== 'string') {
      errors.excerpt = ['Not a valid string.'];
    }
    const hasContent = opts.legacyContent && body.content !== undefined;
    if (hasContent) Object.assign(errors, validateContentPayload(body));
    if (Object.keys(errors).length) throw new HttpError(400, errors);
    const changed = body.title !== undefined || body.excerpt !== undefined || hasContent;
    if (changed && body.websocket !== true && !hasContent && !canEditWithoutWebsocket(ctx, doc)) {
      throw new HttpError(403, { detail: 'You are not allowed to edit this document.' });
    }
    if (hasContent) writeContent(ctx, doc, body);
    if (body.title !== undefined) doc.title = body.title;
    if (body.excerpt !== undefined) doc.excerpt = body.excerpt;
    if (changed) store.touch(doc);
    return { status: 200, body: store.serialize(doc, ctx.user, { withContent: opts.legacyContent }) };
  };

  const destroyDocument = (ctx, id) => {
    const doc = getDoc(ctx, id, 'destroy');
    if (yhub) {
      // A soft delete (Docs' trashbin): the collaboration server closes the room's
      // connections with 4404 and answers its REST routes 404 `doc-deleted`.
      doc.deleted_at = new Date().toISOString();
    } else {
      store.documents.delete(doc.id);
    }
    collab.resetConnections(doc.id);
    return { status: 204 };
  };

  const contentRetrieve = async (ctx, id) => {
    const doc = getDoc(ctx, id, 'content_retrieve');
    await state.heldContent.get(doc.id)?.held;
    if (!doc.content) return { status: 200, body: '', headers: { 'Content-Type': 'text/plain' } };
    const etag = store.etag(doc);
    const inm = ctx.req.headers['if-none-match'];
    if (inm && inm.split(',').map((s) => s.trim()).includes(etag)) {
      return { status: 304, headers: { ETag: etag } };
    }
    return {
      status: 200,
      body: doc.content,
      headers: {
        'Content-Type': 'text/plain',
        ETag: etag,
        'Last-Modified': new Date(doc.updated_at).toUTCString(),
        'Cache-Control': 'private, no-cache',
      },
    };
  };

  const contentPatch = async (ctx, id) => {
    const doc = getDoc(ctx, id, 'content_patch');
    const body = await jsonBody(ctx);
    const errors = validateContentPayload(body);
    if (Object.keys(errors).length) throw new HttpError(400, errors);
    writeContent(ctx, doc, body);
    return { status: 204 };
  };

  const favorite = (ctx, id) => {
    const doc = getDoc(ctx, id, 'favorite');
    if (ctx.method === 'POST') {
      if (doc.favorites.has(ctx.user.id)) {
        return { status: 200, body: { detail: 'Document already marked as favorite' } };
      }
      doc.favorites.add(ctx.user.id);
      return { status: 201, body: { detail: 'Document marked as favorite' } };
    }
    if (doc.favorites.delete(ctx.user.id)) return { status: 204 };
    return { status: 200, body: { detail: 'Document was already not marked as favorite' } };
  };

  const children = (ctx, id) => {
    getDoc(ctx, id, 'children_list');
    const kids = [...store.documents.values()].filter((d) => d.parent_id === id);
    return { status: 200, body: paginate(ctx, kids, (d) => store.serialize(d, ctx.user)) };
  };

  // Docs: a sub-page inherits the parent's link settings and accesses.
  const createChild = async (ctx, id) => {
    requireUser(ctx);
    const parent = getDoc(ctx, id, 'children_create');
    const body = await jsonBody(ctx);
    const childId = creation(body);
    const doc = store.createDocument({
      id: childId,
      title: body.title ?? null,
      link_reach: parent.link_reach,
      link_role: parent.link_role,
      creator_id: ctx.user.id,
    });
    doc.parent_id = parent.id;
    for (const [user, role] of parent.accesses) doc.accesses.set(user, role);
    doc.accesses.set(ctx.user.id, doc.accesses.get(ctx.user.id) === 'owner' ? 'owner' : 'administrator');
    return { status: 201, body: store.serialize(doc, ctx.user) };
  };

  const canEdit = (ctx, id) => {
    const doc = getDoc(ctx, id, 'retrieve');
    const sessionKey = ctx.sessionKeyFromRequest || null;
    const { count, exists } = collab.connectionInfo(doc.id, sessionKey);
    let can = true;
    if (count > 0) can = exists;
    else {
      const current = noWebsocketEditors.get(doc.id);
      can = !current || current.until < Date.now() || current.sessionKey === sessionKey;
    }
    return { status: 200, body: { can_edit: can } };
  };

  const jsonBody = async (ctx) => {
    const ct = String(ctx.req.headers['content-type'] || '');
    const parsed = await readJson(ctx.req);
    if (!parsed.ok) throw new HttpError(400, { detail: parsed.detail });
    if (parsed.value && Object.keys(parsed.value).length && ct && !ct.includes('json')) {
      throw new HttpError(415, { detail: `Unsupported media type "${ct}" in request.` });
    }
    if (typeof parsed.value !== 'object' || parsed.value === null || Array.isArray(parsed.value)) {
      throw new HttpError(400, { non_field_errors: ['Invalid data. Expected a dictionary, but got list.'] });
    }
    return parsed.value;
  };

  // Comment threads: their own viewsets in Docs, without a throttle scope.
  const threadRoute = createThreads({ store, HttpError, denied, jsonBody, paginate, isUuid });

  // ---- router ----
  // Each route: methods -> handler; `documents` marks the DocumentViewSet (throttled).
  const route = (path) => {
    const p = path.replace(/^\/api\/v1\.0\//, '');
    let m;
    if (p === 'config/') return { methods: { GET: config } };
    if (p === 'users/me/') return { userOnly: ['GET'], methods: { GET: usersMe } };
    if (p === 'documents/')
      return { documents: true, userOnly: ['POST'], methods: { GET: listDocuments, POST: createDocument } };
    if (p === 'documents/search/') return { documents: true, methods: { GET: searchDocuments } };
    // Docs 5.7 moved the favorites from favorite_list/ to favorites/; the old path is gone.
    if (p === (versionAtLeast(opts.docsVersion, '5.7.0') ? 'documents/favorites/' : 'documents/favorite_list/'))
      return { documents: true, userOnly: ['GET'], methods: { GET: favoriteList } };
    if ((m = p.match(/^documents\/([^/.]+)\/$/))) {
      const id = m[1];
      return {
        documents: true,
        methods: {
          GET: (ctx) => retrieveDocument(ctx, id),
          PATCH: (ctx) => updateDocument(ctx, id),
          PUT: (ctx) => updateDocument(ctx, id),
          DELETE: (ctx) => destroyDocument(ctx, id),
        },
      };
    }
    // Not before 5.0 (a field of the document then), and gone again with yhub.
    if ((m = p.match(/^documents\/([^/.]+)\/content\/$/)) && !opts.legacyContent && !yhub) {
      const id = m[1];
      return {
        documents: true,
        methods: { GET: (ctx) => contentRetrieve(ctx, id), PATCH: (ctx) => contentPatch(ctx, id) },
      };
    }
    if ((m = p.match(/^documents\/([^/.]+)\/favorite\/$/))) {
      const id = m[1];
      return {
        documents: true,
        methods: { POST: (ctx) => favorite(ctx, id), DELETE: (ctx) => favorite(ctx, id) },
      };
    }
    if ((m = p.match(/^documents\/([^/.]+)\/children\/$/))) {
      const id = m[1];
      return {
        documents: true,
        userOnly: ['POST'],
        methods: { GET: (ctx) => children(ctx, id), POST: (ctx) => createChild(ctx, id) },
      };
    }
    if ((m = p.match(/^documents\/([^/.]+)\/can-edit\/$/))) {
      const id = m[1];
      return { documents: true, methods: { GET: (ctx) => canEdit(ctx, id) } };
    }
    return threadRoute(p);
  };

  return async function handleApi(req, res, url) {
    stats.requests += 1;
    if (opts.latencyMs > 0) await new Promise((ok) => setTimeout(ok, opts.latencyMs));
    const method = req.method.toUpperCase();
    const cookies = parseCookies(req.headers.cookie);
    const extraHeaders = {};
    let sessionKey = cookies[SESSION_COOKIE];
    const known = sessionKey && store.sessions.has(sessionKey);
    const ctx = {
      req,
      res,
      url,
      method,
      cookies,
      sessionKeyFromRequest: sessionKey || null,
      user: known ? store.userForSession(sessionKey) : null,
    };
    if (!known && SAFE_METHODS.has(method)) {
      // Like Docs: every visitor gets a (possibly anonymous) session cookie on GET.
      const session = store.createSession(null);
      sessionKey = session.key;
      const expires = new Date(Date.now() + SESSION_AGE * 1000).toUTCString();
      extraHeaders['Set-Cookie'] =
        `${SESSION_COOKIE}=${session.key}; expires=${expires}; HttpOnly; Max-Age=${SESSION_AGE}; Path=/; SameSite=Lax`;
    }

    const r = route(url.pathname);
    if (!r) {
      notFoundPage(res);
      return;
    }
    try {
      const methods = { ...r.methods };
      if (methods.GET && !methods.HEAD) methods.HEAD = methods.GET;
      const handler = methods[method];
      if (method === 'OPTIONS') {
        send(res, 200, {}, { Allow: [...Object.keys(methods), 'OPTIONS'].join(', '), ...extraHeaders });
        return;
      }
      // DRF order: authentication (CSRF for session users) → permissions → throttles → handler.
      if (!SAFE_METHODS.has(method) && ctx.user) {
        const reason = csrfFailure(ctx);
        if (reason) throw new HttpError(403, { detail: `CSRF Failed: ${reason}` });
      }
      if (!handler) {
        throw new HttpError(405, { detail: `Method "${method}" not allowed.` }, { Allow: Object.keys(methods).join(', ') });
      }
      if (r.userOnly && r.userOnly.includes(method === 'HEAD' ? 'GET' : method)) requireUser(ctx);
      if (state.forcedThrottle.count > 0) {
        state.forcedThrottle.count -= 1;
        throw throttledError(state.forcedThrottle.retryAfter);
      }
      if (r.documents) checkRateThrottle(ctx);
      const out = await handler(ctx);
      send(res, out.status, out.body, { ...extraHeaders, ...(out.headers || {}) });
    } catch (err) {
      if (err instanceof HttpError) {
        send(res, err.status, err.body, { ...extraHeaders, ...err.headers });
      } else {
        console.error('[docs-server] API error', err);
        send(res, 500, { detail: 'Internal server error.' }, extraHeaders);
      }
    }
  };
}

export { LINK_REACHES, LINK_ROLES };

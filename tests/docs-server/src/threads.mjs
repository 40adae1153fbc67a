// Docs' comment threads (core/api/viewsets.py ThreadViewSet and CommentViewSet, serializers
// ThreadSerializer and CommentSerializer, permissions.CommentPermission, models Thread and
// Comment): in memory, per document.
//
//   GET/POST   documents/<id>/threads/                       list (not paginated) / create
//   GET/DELETE documents/<id>/threads/<tid>/                  retrieve / destroy
//   POST       documents/<id>/threads/<tid>/resolve/          → 204
//   POST       documents/<id>/threads/<tid>/unresolve/        → 204
//   GET/POST   documents/<id>/threads/<tid>/comments/         list (paginated) / create
//   GET/PUT/PATCH/DELETE documents/<id>/threads/<tid>/comments/<cid>/
//
// Permissions as in Docs: listing and creating need the document ability `comment` (editors,
// and the `commenter` link role or access role); a thread or comment itself is checked
// against its own abilities (resolving, deleting a thread: its creator, or an owner or
// administrator of the document; editing a comment: its author; deleting it: its author or an
// owner or administrator).
import { randomUUID } from 'node:crypto';

const THREAD_NOT_FOUND = { detail: 'No Thread matches the given query.' };
const COMMENT_NOT_FOUND = { detail: 'No Comment matches the given query.' };
const DOCUMENT_NOT_FOUND = { detail: 'Document not found.' };

/** Docs' UserLightSerializer, or null for an anonymous author. */
const userLight = (store, userId) => {
  const user = userId ? store.users.get(userId) : null;
  return user ? { full_name: user.full_name, short_name: user.short_name } : null;
};

export function createThreads({ store, HttpError, denied, jsonBody, paginate, isUuid }) {
  const now = () => new Date().toISOString();

  // CommentViewSetMixin.get_document_or_404: any document with this id (abilities decide).
  const documentOr404 = (id) => {
    const doc = isUuid(id) ? store.documents.get(id.toLowerCase()) : null;
    if (!doc) throw new HttpError(404, DOCUMENT_NOT_FOUND);
    return doc;
  };

  // CommentPermission.has_permission for `list` and `create`.
  const requireComment = (ctx, doc) => {
    if (!store.abilities(doc, ctx.user).comment) throw denied(ctx);
  };

  const threadsOf = (doc) => {
    if (!doc.threads) doc.threads = new Map();
    return doc.threads;
  };

  // The viewsets' queryset filtered on the document, then get_object (404 first).
  const threadOr404 = (docId, threadId) => {
    const doc = isUuid(docId) ? store.documents.get(docId.toLowerCase()) : null;
    const thread = doc && isUuid(threadId) ? threadsOf(doc).get(threadId.toLowerCase()) : null;
    if (!thread) throw new HttpError(404, THREAD_NOT_FOUND);
    return { doc, thread };
  };

  const isOwnerOrAdmin = (doc, user) => ['owner', 'administrator'].includes(store.getRole(doc, user));

  // models.Thread.get_abilities
  const threadAbilities = (doc, thread, user) => {
    const write = Boolean(user && thread.creator_id === user.id) || isOwnerOrAdmin(doc, user);
    return {
      destroy: write,
      update: write,
      partial_update: write,
      resolve: write,
      unresolve: write,
      retrieve: store.abilities(doc, user).comment,
    };
  };

  // models.Comment.get_abilities
  const commentAbilities = (doc, comment, user) => {
    const read = store.abilities(doc, user).comment;
    const isAuthor = Boolean(user && comment.user_id === user.id);
    const moderate = isAuthor || isOwnerOrAdmin(doc, user);
    return {
      destroy: moderate,
      update: isAuthor,
      partial_update: isAuthor,
      reactions: read && Boolean(user),
      retrieve: read,
    };
  };

  // CommentPermission.has_object_permission
  const requireObject = (ctx, abilities, action) => {
    if (!abilities[action]) throw denied(ctx);
  };

  const serializeComment = (ctx, doc, c) => ({
    id: c.id,
    user: userLight(store, c.user_id),
    body: c.body,
    created_at: c.created_at,
    updated_at: c.updated_at,
    reactions: [],
    abilities: commentAbilities(doc, c, ctx.user),
  });

  const serializeThread = (ctx, doc, t) => ({
    id: t.id,
    created_at: t.created_at,
    updated_at: t.updated_at,
    creator: userLight(store, t.creator_id),
    abilities: threadAbilities(doc, t, ctx.user),
    comments: t.comments.map((c) => serializeComment(ctx, doc, c)),
    resolved: t.resolved,
    resolved_at: t.resolved_at,
    resolved_by: t.resolved_by,
    metadata: t.metadata,
  });

  // serializers.JSONField(required=True): any JSON value but null.
  const bodyField = (body) => {
    if (!('body' in body)) throw new HttpError(400, { body: ['This field is required.'] });
    if (body.body === null) throw new HttpError(400, { body: ['This field may not be null.'] });
    return body.body;
  };

  const newComment = (ctx, body) => {
    const at = now();
    return { id: randomUUID(), user_id: ctx.user?.id ?? null, body, created_at: at, updated_at: at };
  };

  // ---- ThreadViewSet ----
  const listThreads = (ctx, docId) => {
    const doc = documentOr404(docId);
    requireComment(ctx, doc);
    const threads = [...threadsOf(doc).values()].sort((a, b) =>
      a.created_at < b.created_at ? 1 : a.created_at > b.created_at ? -1 : 0,
    );
    return { status: 200, body: threads.map((t) => serializeThread(ctx, doc, t)) };
  };

  const createThread = async (ctx, docId) => {
    const doc = documentOr404(docId);
    requireComment(ctx, doc);
    const body = bodyField(await jsonBody(ctx));
    const at = now();
    const thread = {
      id: randomUUID(),
      creator_id: ctx.user?.id ?? null,
      created_at: at,
      updated_at: at,
      resolved: false,
      resolved_at: null,
      resolved_by: null,
      metadata: {},
      comments: [newComment(ctx, body)],
    };
    threadsOf(doc).set(thread.id, thread);
    return { status: 201, body: serializeThread(ctx, doc, thread) };
  };

  const retrieveThread = (ctx, docId, threadId) => {
    const { doc, thread } = threadOr404(docId, threadId);
    requireObject(ctx, threadAbilities(doc, thread, ctx.user), 'retrieve');
    return { status: 200, body: serializeThread(ctx, doc, thread) };
  };

  const destroyThread = (ctx, docId, threadId) => {
    const { doc, thread } = threadOr404(docId, threadId);
    requireObject(ctx, threadAbilities(doc, thread, ctx.user), 'destroy');
    threadsOf(doc).delete(thread.id);
    return { status: 204 };
  };

  // Docs saves only the resolution fields (`update_fields`): `updated_at` does not change.
  const resolve = (ctx, docId, threadId, resolved) => {
    const { doc, thread } = threadOr404(docId, threadId);
    requireObject(ctx, threadAbilities(doc, thread, ctx.user), resolved ? 'resolve' : 'unresolve');
    if (thread.resolved !== resolved) {
      thread.resolved = resolved;
      thread.resolved_at = resolved ? now() : null;
      thread.resolved_by = resolved ? ctx.user?.id ?? null : null;
    }
    return { status: 204 };
  };

  // ---- CommentViewSet ----
  const commentOr404 = (docId, threadId, commentId) => {
    const { doc, thread } = threadOr404(docId, threadId);
    const comment = thread.comments.find((c) => c.id === String(commentId).toLowerCase());
    if (!comment) throw new HttpError(404, COMMENT_NOT_FOUND);
    return { doc, thread, comment };
  };

  const listComments = (ctx, docId, threadId) => {
    const doc = documentOr404(docId);
    requireComment(ctx, doc);
    const thread = isUuid(threadId) ? threadsOf(doc).get(threadId.toLowerCase()) : null;
    const comments = thread ? thread.comments : [];
    return { status: 200, body: paginate(ctx, comments, (c) => serializeComment(ctx, doc, c)) };
  };

  const createComment = async (ctx, docId, threadId) => {
    const doc = documentOr404(docId);
    requireComment(ctx, doc);
    const body = bodyField(await jsonBody(ctx));
    // (Docs would fail on the foreign key of a thread that is not this document's.)
    const { thread } = threadOr404(docId, threadId);
    const comment = newComment(ctx, body);
    thread.comments.push(comment);
    return { status: 201, body: serializeComment(ctx, doc, comment) };
  };

  const retrieveComment = (ctx, docId, threadId, commentId) => {
    const { doc, comment } = commentOr404(docId, threadId, commentId);
    requireObject(ctx, commentAbilities(doc, comment, ctx.user), 'retrieve');
    return { status: 200, body: serializeComment(ctx, doc, comment) };
  };

  const updateComment = async (ctx, docId, threadId, commentId) => {
    const { doc, comment } = commentOr404(docId, threadId, commentId);
    const partial = ctx.method === 'PATCH';
    requireObject(ctx, commentAbilities(doc, comment, ctx.user), partial ? 'partial_update' : 'update');
    const data = await jsonBody(ctx);
    if (!partial || 'body' in data) comment.body = bodyField(data);
    comment.updated_at = now();
    return { status: 200, body: serializeComment(ctx, doc, comment) };
  };

  const destroyComment = (ctx, docId, threadId, commentId) => {
    const { doc, thread, comment } = commentOr404(docId, threadId, commentId);
    requireObject(ctx, commentAbilities(doc, comment, ctx.user), 'destroy');
    thread.comments = thread.comments.filter((c) => c !== comment);
    return { status: 204 };
  };

  /** The route of a path under /api/v1.0/ (without that prefix), or null. */
  return function route(p) {
    let m;
    if ((m = p.match(/^documents\/([^/.]+)\/threads\/$/))) {
      const id = m[1];
      return {
        methods: { GET: (ctx) => listThreads(ctx, id), POST: (ctx) => createThread(ctx, id) },
      };
    }
    if ((m = p.match(/^documents\/([^/.]+)\/threads\/([^/.]+)\/$/))) {
      const [, id, tid] = m;
      return {
        methods: {
          GET: (ctx) => retrieveThread(ctx, id, tid),
          DELETE: (ctx) => destroyThread(ctx, id, tid),
        },
      };
    }
    if ((m = p.match(/^documents\/([^/.]+)\/threads\/([^/.]+)\/(resolve|unresolve)\/$/))) {
      const [, id, tid, action] = m;
      return { methods: { POST: (ctx) => resolve(ctx, id, tid, action === 'resolve') } };
    }
    if ((m = p.match(/^documents\/([^/.]+)\/threads\/([^/.]+)\/comments\/$/))) {
      const [, id, tid] = m;
      return {
        methods: {
          GET: (ctx) => listComments(ctx, id, tid),
          POST: (ctx) => createComment(ctx, id, tid),
        },
      };
    }
    if ((m = p.match(/^documents\/([^/.]+)\/threads\/([^/.]+)\/comments\/([^/.]+)\/$/))) {
      const [, id, tid, cid] = m;
      return {
        methods: {
          GET: (ctx) => retrieveComment(ctx, id, tid, cid),
          PUT: (ctx) => updateComment(ctx, id, tid, cid),
          PATCH: (ctx) => updateComment(ctx, id, tid, cid),
          DELETE: (ctx) => destroyComment(ctx, id, tid, cid),
        },
      };
    }
    return null;
  };
}

// Signing in the way Docs does (mozilla-django-oidc behind Django), with a fake identity
// provider on this same server, and the frontend's pages:
//
//   GET  /api/v1.0/authenticate/?next=/path  → 302 to the provider's login page (a state is kept
//                                              in the visitor's session)
//   GET  /__test__/oidc/login?state=…        → the provider's form (email + "Sign in")
//   POST /__test__/oidc/login                → 302 to /api/v1.0/callback/?code=…&state=…
//   GET  /api/v1.0/callback/?code=…&state=…  → login(): a NEW docs_sessionid (HttpOnly) and a
//                                              rotated csrftoken, 302 to `next` (default `/`)
//   GET  /api/v1.0/logout/                   → logout(): the session is ended on the server, its
//                                              cookie cleared, 302 to `/` (where Docs sends the
//                                              browser on to the provider's end-session page)
//   GET  / and /docs/<id>/                   → the frontend (a tiny HTML page titled "Docs")
//
// `state.autoSignIn` (set through the control API) makes the next authenticate skip the form:
// it goes straight to the callback as that email, for unattended tests.
import { parseCookies, readBody, send } from './http.mjs';
import { isUuid, randomToken } from './store.mjs';

const SESSION_COOKIE = 'docs_sessionid';
const CSRF_COOKIE = 'csrftoken';
const SESSION_AGE = 12 * 3600;
// Django's CSRF_COOKIE_AGE: one year.
const CSRF_AGE = 31449600;
const LOGIN_PATH = '/__test__/oidc/login';

const HTML = { 'Content-Type': 'text/html; charset=utf-8' };

const escapeHtml = (s) =>
  String(s).replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]);

const cookie = (name, value, maxAge, httpOnly) =>
  `${name}=${value}; expires=${new Date(Date.now() + maxAge * 1000).toUTCString()};` +
  `${httpOnly ? ' HttpOnly;' : ''} Max-Age=${maxAge}; Path=/; SameSite=Lax`;

/** Only a path of this site may follow the login (Django's url_has_allowed_host_and_scheme). */
const safeNext = (next) => (next && next.startsWith('/') && !next.startsWith('//') ? next : '/');

const redirect = (res, location, headers = {}) => send(res, 302, '', { Location: location, ...headers });

function loginForm(stateParam, error) {
  return (
    '<!doctype html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n' +
    '  <title>Sign in – test identity provider</title>\n</head>\n<body>\n  <main>\n' +
    '    <h1>Sign in</h1>\n' +
    (error ? `    <p role="alert">${escapeHtml(error)}</p>\n` : '') +
    `    <form method="post" action="${LOGIN_PATH}">\n` +
    `      <input type="hidden" name="state" value="${escapeHtml(stateParam)}">\n` +
    '      <label for="email">Email</label>\n' +
    '      <input id="email" name="email" type="email" autocomplete="email" required>\n' +
    '      <button type="submit">Sign in</button>\n' +
    '    </form>\n  </main>\n</body>\n</html>\n'
  );
}

const FRONTEND_PAGE =
  '<!doctype html>\n<html lang="en">\n<head>\n  <meta charset="utf-8">\n  <title>Docs</title>\n</head>\n' +
  '<body>\n  <main><h1>Docs</h1></main>\n</body>\n</html>\n';

export function createLogin({ store, state }) {
  const codes = new Map(); // authorization code -> { email, state }

  const issueCode = (email, oidcState) => {
    const code = randomToken(32);
    codes.set(code, { email, state: oidcState });
    return code;
  };

  const callbackUrl = (code, oidcState) =>
    `/api/v1.0/callback/?code=${encodeURIComponent(code)}&state=${encodeURIComponent(oidcState)}`;

  const authenticate = (req, res, url) => {
    const cookies = parseCookies(req.headers.cookie);
    let session = store.sessions.get(cookies[SESSION_COOKIE]);
    const headers = {};
    if (!session) {
      session = store.createSession(null);
      headers['Set-Cookie'] = cookie(SESSION_COOKIE, session.key, SESSION_AGE, true);
    }
    const oidcState = randomToken(32);
    session.oidcStates.set(oidcState, safeNext(url.searchParams.get('next')));
    const auto = state.autoSignIn;
    if (auto) {
      state.autoSignIn = null;
      redirect(res, callbackUrl(issueCode(auto, oidcState), oidcState), headers);
      return;
    }
    redirect(res, `${LOGIN_PATH}?state=${encodeURIComponent(oidcState)}`, headers);
  };

  const providerLogin = async (req, res, url) => {
    if (req.method === 'GET') {
      send(res, 200, loginForm(url.searchParams.get('state') || ''), HTML);
      return;
    }
    if (req.method !== 'POST') {
      send(res, 405, 'Method not allowed', { Allow: 'GET, POST' });
      return;
    }
    const form = new URLSearchParams((await readBody(req, 64 * 1024)).toString('utf8'));
    const email = (form.get('email') || '').trim();
    const oidcState = form.get('state') || '';
    if (!/^[^\s@]+@[^\s@]+$/.test(email)) {
      send(res, 400, loginForm(oidcState, 'Enter a valid email address.'), HTML);
      return;
    }
    redirect(res, callbackUrl(issueCode(email, oidcState), oidcState));
  };

  const callback = (req, res, url) => {
    const cookies = parseCookies(req.headers.cookie);
    const session = store.sessions.get(cookies[SESSION_COOKIE]);
    const oidcState = url.searchParams.get('state') || '';
    if (!session || !session.oidcStates.has(oidcState)) {
      // mozilla-django-oidc raises SuspiciousOperation: Django answers 400.
      send(res, 400, 'OIDC callback state not found in session `oidc_states`!');
      return;
    }
    const next = session.oidcStates.get(oidcState);
    session.oidcStates.delete(oidcState);
    const code = codes.get(url.searchParams.get('code') || '');
    codes.delete(url.searchParams.get('code') || '');
    if (!code || code.state !== oidcState) {
      // A failed login goes to LOGIN_REDIRECT_URL_FAILURE (the frontend), still anonymous.
      redirect(res, '/');
      return;
    }
    const user = store.userByEmail(code.email) || store.createUser({ email: code.email });
    // Django's login(): a new session key (the old one is dropped) and a rotated CSRF token.
    store.sessions.delete(session.key);
    const signedIn = store.createSession(user.id);
    redirect(res, next, {
      'Set-Cookie': [
        cookie(SESSION_COOKIE, signedIn.key, SESSION_AGE, true),
        cookie(CSRF_COOKIE, signedIn.csrf, CSRF_AGE, false),
      ],
    });
  };

  const logout = (req, res) => {
    const cookies = parseCookies(req.headers.cookie);
    store.sessions.delete(cookies[SESSION_COOKIE]);
    redirect(res, '/', { 'Set-Cookie': [cookie(SESSION_COOKIE, '', 0, true)] });
  };

  /** Handles the request if it is part of signing in or a frontend page; false otherwise. */
  return async function handleLogin(req, res, url) {
    const path = url.pathname;
    const get = req.method === 'GET' || req.method === 'HEAD';
    if (path === '/api/v1.0/authenticate/' && get) authenticate(req, res, url);
    else if (path === '/api/v1.0/callback/' && get) callback(req, res, url);
    else if (path === '/api/v1.0/logout/' && get) logout(req, res);
    else if (path === LOGIN_PATH) await providerLogin(req, res, url);
    else if (get && (path === '/' || (/^\/docs\/([^/]+)\/$/.test(path) && isUuid(path.split('/')[2]))))
      send(res, 200, FRONTEND_PAGE, HTML);
    else return false;
    return true;
  };
}

// Small HTTP helpers (Django/DRF-like responses).

export function parseCookies(header) {
  const out = {};
  if (!header) return out;
  for (const part of header.split(';')) {
    const i = part.indexOf('=');
    if (i < 0) continue;
    const k = part.slice(0, i).trim();
    const v = part.slice(i + 1).trim();
    if (k && !(k in out)) out[k] = decodeURIComponent(v);
  }
  return out;
}

export function send(res, status, body, headers = {}) {
  const h = { Vary: 'Accept, Cookie, Origin', ...headers };
  let payload = '';
  if (body !== undefined && body !== null) {
    if (typeof body === 'string' || Buffer.isBuffer(body)) {
      payload = body;
      if (!h['Content-Type']) h['Content-Type'] = 'text/plain';
    } else {
      payload = JSON.stringify(body);
      h['Content-Type'] = 'application/json';
    }
  }
  h['Content-Length'] = Buffer.byteLength(payload);
  for (const [k, v] of Object.entries(h)) res.setHeader(k, v);
  res.writeHead(status);
  res.end(payload);
}

export const sendJson = (res, status, body, headers) => send(res, status, body, headers);

export const DJANGO_404_HTML =
  '<!doctype html>\n<html lang="en">\n<head>\n  <title>Not Found</title>\n</head>\n<body>\n' +
  '  <h1>Not Found</h1><p>The requested resource was not found on this server.</p>\n</body>\n</html>\n';

export function notFoundPage(res) {
  send(res, 404, DJANGO_404_HTML, { 'Content-Type': 'text/html; charset=utf-8' });
}

export async function readBody(req, limit = 50 * 1024 * 1024) {
  const chunks = [];
  let size = 0;
  for await (const chunk of req) {
    size += chunk.length;
    if (size > limit) throw Object.assign(new Error('body too large'), { status: 413 });
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

/** Parses a JSON body. Returns {ok, value} or {ok:false, detail}. */
export async function readJson(req) {
  const raw = await readBody(req);
  if (raw.length === 0) return { ok: true, value: {} };
  try {
    return { ok: true, value: JSON.parse(raw.toString('utf8')) };
  } catch (e) {
    return { ok: false, detail: `JSON parse error - ${e.message}` };
  }
}

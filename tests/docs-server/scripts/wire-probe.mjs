// Observes Hocuspocus 3.4.4's wire behaviour against a running docs-server.
//   node scripts/wire-probe.mjs http://127.0.0.1:PORT
// Prints every frame a raw client receives in a set of scenarios.
import * as decoding from 'lib0/decoding';
import * as encoding from 'lib0/encoding';
import WebSocket from 'ws';
import * as Y from 'yjs';

const base = process.argv[2];
const wsBase = base.replace('http', 'ws') + '/collaboration/ws/';
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));
const post = async (path, body) =>
  (await fetch(base + path, { method: 'POST', body: JSON.stringify(body ?? {}) })).json();

function frame(name, type, write) {
  const e = encoding.createEncoder();
  encoding.writeVarString(e, name);
  encoding.writeVarUint(e, type);
  write?.(e);
  return encoding.toUint8Array(e);
}
const auth = (name) => frame(name, 2, (e) => { encoding.writeVarUint(e, 0); encoding.writeVarString(e, ''); });
const step1 = (name, doc) => frame(name, 0, (e) => { encoding.writeVarUint(e, 0); encoding.writeVarUint8Array(e, Y.encodeStateVector(doc)); });
const step2 = (name, doc, sv) => frame(name, 0, (e) => { encoding.writeVarUint(e, 1); encoding.writeVarUint8Array(e, Y.encodeStateAsUpdate(doc, sv)); });
const update = (name, u) => frame(name, 0, (e) => { encoding.writeVarUint(e, 2); encoding.writeVarUint8Array(e, u); });

function describe(buf) {
  const d = decoding.createDecoder(new Uint8Array(buf));
  const name = decoding.readVarString(d);
  const type = decoding.readVarUint(d);
  const short = name.slice(0, 8);
  switch (type) {
    case 0: {
      const sub = decoding.readVarUint(d);
      const payload = decoding.readVarUint8Array(d);
      return { short, type: 'Sync', sub: ['Step1', 'Step2', 'Update'][sub], bytes: payload.length, payload };
    }
    case 1: return { short, type: 'Awareness', bytes: decoding.readVarUint8Array(d).length };
    case 2: {
      const sub = decoding.readVarUint(d);
      const s = decoding.hasContent(d) ? decoding.readVarString(d) : '';
      return { short, type: 'Auth', sub: ['Token', 'PermissionDenied', 'Authenticated'][sub], value: s };
    }
    case 7: return { short, type: 'CLOSE', reason: decoding.hasContent(d) ? decoding.readVarString(d) : '' };
    case 8: return { short, type: 'SyncStatus', value: decoding.readVarUint(d) };
    default: return { short, type };
  }
}

function client(label, room, { origin = base, cookie = 'docs_sessionid=probe' } = {}) {
  const headers = {};
  if (origin) headers.Origin = origin;
  if (cookie) headers.Cookie = cookie;
  const ws = new WebSocket(`${wsBase}?room=${room}`, { headers });
  const log = [];
  ws.binaryType = 'arraybuffer';
  ws.on('message', (data) => {
    const m = describe(data);
    log.push(m);
    const { payload, ...rest } = m;
    console.log(`  [${label}] <-`, JSON.stringify(rest));
  });
  ws.on('close', (code, reason) => console.log(`  [${label}] socket closed code=${code} reason=${JSON.stringify(reason.toString())}`));
  ws.on('error', (e) => console.log(`  [${label}] error ${e.message}`));
  const opened = new Promise((r) => ws.once('open', r));
  return { ws, log, opened, send: (b) => ws.send(b) };
}

async function main() {
  const editor = await post('/__test__/users', { email: 'probe@example.org', full_name: 'Probe' });
  const pub = (await post('/__test__/documents', { title: 'p', markdown: 'Hello', link_reach: 'public', link_role: 'editor' })).id;
  const ro = (await post('/__test__/documents', { title: 'r', markdown: 'Hello', link_reach: 'public', link_role: 'reader' })).id;
  const restricted = (await post('/__test__/documents', { title: 'x', markdown: 'Hello', link_reach: 'restricted', link_role: 'reader' })).id;

  console.log('# no Origin');
  client('A', pub, { origin: null }); await sleep(300);
  console.log('# no Cookie');
  client('B', pub, { cookie: null }); await sleep(300);

  console.log('# editor on public editor doc: auth, step1, reply step2, update');
  const doc = new Y.Doc();
  const c = client('C', pub);
  await c.opened;
  c.send(auth(pub)); c.send(step1(pub, doc));
  await sleep(300);
  const s1 = c.log.find((m) => m.type === 'Sync' && m.sub === 'Step1');
  const s2 = c.log.find((m) => m.type === 'Sync' && m.sub === 'Step2');
  if (s2) Y.applyUpdate(doc, s2.payload);
  console.log('  -> sending Step2 answer');
  c.send(step2(pub, doc, s1?.payload));
  await sleep(200);
  console.log('  -> sending 2 Updates');
  for (const t of ['x', 'y']) {
    const before = Y.encodeStateVector(doc);
    doc.getText('t').insert(0, t);
    c.send(update(pub, Y.encodeStateAsUpdate(doc, before)));
  }
  await sleep(300);
  console.log('  -> second client D joins; C sends one more update');
  const d = client('D', pub); await d.opened;
  d.send(auth(pub)); d.send(step1(pub, new Y.Doc())); await sleep(300);
  { const before = Y.encodeStateVector(doc); doc.getText('t').insert(0, 'z'); c.send(update(pub, Y.encodeStateAsUpdate(doc, before))); }
  await sleep(300);
  console.log('  -> reset-connections');
  await post(`/__test__/documents/${pub}/reset-connections`);
  await sleep(500);
  console.log('  -> C sends an Update after CLOSE');
  { const before = Y.encodeStateVector(doc); doc.getText('t').insert(0, 'w'); c.send(update(pub, Y.encodeStateAsUpdate(doc, before))); }
  await sleep(300);
  console.log('  -> C re-authenticates on the same socket');
  c.send(auth(pub)); c.send(step1(pub, doc));
  await sleep(400);

  console.log('# read-only (public reader)');
  const r = client('R', ro); await r.opened;
  const rdoc = new Y.Doc();
  r.send(auth(ro)); r.send(step1(ro, rdoc)); await sleep(300);
  const rs1 = r.log.find((m) => m.sub === 'Step1'); const rs2 = r.log.find((m) => m.sub === 'Step2');
  Y.applyUpdate(rdoc, rs2.payload);
  console.log('  -> Step2 answer with nothing new');
  r.send(step2(ro, rdoc, rs1.payload)); await sleep(200);
  console.log('  -> Update');
  { const before = Y.encodeStateVector(rdoc); rdoc.getText('t').insert(0, 'q'); r.send(update(ro, Y.encodeStateAsUpdate(rdoc, before))); }
  await sleep(300);
  const live = await (await fetch(`${base}/__test__/documents/${ro}/live`)).json();
  console.log('  live markdown after read-only update:', JSON.stringify(live.markdown));

  console.log('# refused (anonymous on restricted)');
  const x = client('X', restricted); await x.opened;
  x.send(auth(restricted)); x.send(step1(restricted, new Y.Doc())); await sleep(400);
  console.log('  -> sending another Auth on the same socket');
  x.send(auth(restricted)); await sleep(400);
  console.log('  -> sending Update after refusal');
  x.send(update(restricted, Y.encodeStateAsUpdate(doc))); await sleep(300);
  console.log('  ws readyState', x.ws.readyState);

  console.log('# wrong room name');
  const w = client('W', pub); await w.opened;
  w.send(auth(ro)); await sleep(300);

  console.log('# drop-connections');
  await post('/__test__/drop-connections');
  await sleep(300);
  console.log('stats', JSON.stringify(await (await fetch(`${base}/__test__/stats`)).json()));
  process.exit(0);
}
main();

#!/usr/bin/env node
// docs-mcp next to the TypeScript peer (CoopCodeCommun/lasuite-docs-mcp 0.5.0), both driven by
// this one Node process with the official MCP TypeScript SDK client over stdio, against one
// instance of the Docs-like test server (tests/docs-server) in its pre-5.0 mode
// (`--legacy-content`): the peer reads a document only from the `content` field of
// `GET documents/<id>/`, which Docs removed in 5.0.
//
//   node side-by-side.mjs --peer <peer's dist/server.js> --ours <docs-mcp binary>
//                         [--runs N] [--rows start,reads,insert,rss,huge] [--docs-server <dir>]
//                         [--anonymous]
//
// Without --peer, every row is measured for ours alone, the same way (the peer's columns say
// "—"): our figures, as the issue writes each row, on a machine that cannot build the peer.
//
// Both servers run signed in as the owner of every document (documents are `restricted`, so
// nothing works without the session): ours with DOCS_SESSION_COOKIE / DOCS_CSRF_TOKEN, as the
// `agent` bench starts it otherwise (`serve --stdio --approval auto`, its own data directory
// and HOME); the peer with DOCS_INSTANCE_URL and a `set_session_credentials` call (its only way
// to take a session) right after each start, outside any timed span. The test server does not
// throttle (`--throttle-rate 0`, as in the `agent` bench): the peer makes two REST calls per
// read and per insert, over Docs' 80 a minute. With --anonymous, documents are public (editor
// link) and neither server nor the observer is given the session: the peer then skips the
// `PATCH documents/<id>/` of the whole document it makes after each edit when signed in.
//
// What is measured, peer and ours alternated within each row (but for the inserts, see 4):
// 1. start → first `tools/list`: from creating the SDK transport (which spawns the process) to
//    the answer of `listTools` (initialize handshake included; the SDK also compiles the
//    validators of the output schemas a server declares, inside that call). A fresh process
//    each time, median of 10, after one start of each not counted (ours creates its data
//    directory then).
// 2. first read of a 10 000-block document, whole, a fresh process's first call, a person's
//    browser in the room: a document seeded just before and opened by a Hocuspocus provider
//    (a Y.Doc loaded from REST, as a browser), held by the room (the server took in what the
//    provider pushed: `live-clocks`); then a fresh process of each is started and
//    signed in (not timed), and its first call reads the whole document: the peer's
//    `read_document` (the whole document as JSON); ours page after page at the largest
//    budget its schema allows (`from_block` = the page before's `next_block_id`) until the end,
//    the calls counted. From the first call to the last answer. Median of 5, peer and ours
//    alternated.
// 3. read of a 1 000-block document, whole, again: the same document read again (after one
//    read not counted), median of 50; ours whole as in 2, and its first page (default budget).
// 4. insert → visible at another client: 100 inserts in a row in a 1 000-block document, each
//    once the previous one was answered and seen; the peer's 100, then ours (ours first in
//    even runs), since what the test server and this process do after a signed-in peer insert
//    slows an insert that follows at once. The other client is a Hocuspocus provider
//    (a Y.Doc loaded from REST, as a browser) in this process; the time runs from the call to
//    the provider's doc `update` event whose update carries the inserted text. Also the time
//    until the call is answered. Ours: `insert_blocks` at the end; the peer has no insert at
//    the end: `insert_block` after the last block (the one it inserted before). Median, p99.
// 5. RSS (`VmRSS` of /proc/<pid>/status) of the server process after reading 20 documents of
//    1 000 blocks, and in another fresh process of 200 blocks.
// 6-10. bytes on the wire for a one-word change, 50 documents asked at once, a 50 000-block
//    document, the app's footprint: each said where it is measured, below.
//
// Prints `name: value` lines, then two markdown tables, the issue's rows and the scale (peer,
// ours, peer ÷ ours; with --runs N, each cell holds the N runs' figures separated by " / ").

import { spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { mkdirSync, readFileSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { performance } from 'node:perf_hooks';
import { fileURLToPath } from 'node:url';

import { HocuspocusProvider, HocuspocusProviderWebsocket } from '@hocuspocus/provider';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import WebSocket from 'ws';
import * as Y from 'yjs';

const HERE = dirname(fileURLToPath(import.meta.url));
const STARTS = 10;
const FIRST_READS = 5;
const CACHED_READS = 50;
const INSERTS = 100;
const RSS_DOCUMENTS = 20;
const ONE_WORD_EDITS = 5;
const AT_ONCE = 50;
const HUGE_INSERTS = 20;
/** How long after the last insert the 50 000-block row takes the RSS again. */
const HUGE_SETTLE_MS = 10_000;
const TOKEN = 'side-by-side-token-0123456789abcdefghijklmnopq';
const CALL_TIMEOUT_MS = 300_000;

// ---------------------------------------------------------------------------------------------
// Arguments, figures

function parseArgs(argv) {
  const opts = {
    peer: null,
    ours: null,
    runs: 1,
    rows: ['start', 'reads', 'insert', 'rss', 'bytes', 'at-once', 'huge'],
    docsServer: resolve(HERE, '../../../../tests/docs-server'),
    anonymous: false,
    app: null,
  };
  for (let i = 0; i < argv.length; i++) {
    const value = () => {
      const v = argv[++i];
      if (v === undefined) throw new Error(`missing value for ${argv[i - 1]}`);
      return v;
    };
    const a = argv[i];
    if (a === '--peer') opts.peer = resolve(value());
    else if (a === '--ours') opts.ours = resolve(value());
    else if (a === '--runs') opts.runs = Number.parseInt(value(), 10);
    else if (a === '--rows') opts.rows = value().split(',').map((r) => r.trim());
    else if (a === '--docs-server') opts.docsServer = resolve(value());
    else if (a === '--anonymous') opts.anonymous = true;
    else if (a === '--app') opts.app = resolve(value());
    else throw new Error(`unknown argument ${a}`);
  }
  if (!opts.ours || !(opts.runs >= 1)) {
    throw new Error(
      'usage: node side-by-side.mjs [--peer <peer dist/server.js>] --ours <docs-mcp> [--runs N] ' +
        '[--rows start,reads,insert,rss,bytes,at-once,huge] [--docs-server <dir>] [--anonymous] ' +
        '[--app <docs-mcp-app>]',
    );
  }
  // The servers measured, in the order each row alternates them.
  opts.kinds = opts.peer ? ['peer', 'ours'] : ['ours'];
  return opts;
}

const sorted = (v) => [...v].sort((a, b) => a - b);
const median = (v) => sorted(v)[Math.floor(v.length / 2)];
const p99 = (v) => sorted(v)[Math.min(Math.max(Math.ceil(v.length * 0.99), 1), v.length) - 1];
/** One decimal; "—" for a figure not measured (no peer) and for a ratio with one. */
const f1 = (x) => (Number.isFinite(x) ? x.toFixed(1) : '—');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

function loadAverage() {
  return readFileSync('/proc/loadavg', 'utf8').split(/\s+/).slice(0, 3).join(' ');
}

function rssKib(pid) {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8')
    .split('\n')
    .find((l) => l.startsWith('VmRSS:'));
  return Number.parseInt(line.replace(/\D+/g, ''), 10);
}

/** User + system CPU time of a process so far, in ms (`/proc/<pid>/stat`, 100 ticks a second). */
function cpuMs(pid) {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the line, 12 and 13 after the state.
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

function freePort() {
  return new Promise((ok, fail) => {
    const srv = net.createServer();
    srv.once('error', fail);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => ok(port));
    });
  });
}

// ---------------------------------------------------------------------------------------------
// The test server

class DocsServer {
  /** `throttleRate`: REST calls a user may make a minute (0: no limit; Docs: 80). */
  static async start(dir, throttleRate = 0) {
    const child = spawn(
      process.execPath,
      [join(dir, 'src/main.mjs'), '--port', '0', '--legacy-content', '--throttle-rate', String(throttleRate)],
      { stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const log = [];
    child.stderr.setEncoding('utf8');
    child.stderr.on('data', (d) => {
      log.push(d);
      if (log.length > 200) log.shift();
    });
    const url = await new Promise((ok, fail) => {
      let buffered = '';
      child.stdout.setEncoding('utf8');
      child.stdout.on('data', (d) => {
        buffered += d;
        const m = buffered.match(/LISTENING (http:\/\/127\.0\.0\.1:\d+)/);
        if (m) ok(m[1]);
      });
      child.once('exit', (code) => fail(new Error(`test server exited (${code}): ${log.join('')}`)));
    });
    const server = new DocsServer();
    Object.assign(server, { child, url, log });
    return server;
  }

  async control(method, path, body) {
    const res = await fetch(`${this.url}/__test__/${path}`, {
      method,
      headers: { 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    if (!res.ok) throw new Error(`${method} /__test__/${path}: HTTP ${res.status} ${text}`);
    return JSON.parse(text);
  }

  stop() {
    this.child.stdin.end();
  }
}

/** A run of inline text in BlockNote JSON. */
const run = (text, bold) => ({ type: 'text', text, styles: bold ? { bold: true } : {} });

/** BlockNote blocks as the `agent` bench seeds them: a level-2 heading every 10 blocks. */
function blocksOf(count) {
  const blocks = [];
  for (let i = 0; i < count; i++) {
    const id = randomUUID();
    blocks.push(
      i % 10 === 0
        ? { id, type: 'heading', props: { level: 2 }, content: [run(`Section ${i}`, false)], children: [] }
        : {
            id,
            type: 'paragraph',
            children: [],
            content: [run(`Paragraph ${i} with `, false), run('some', true), run(' ordinary words in it.', false)],
          },
    );
  }
  return blocks;
}

/** A document of `count` blocks, restricted to its owner `user` (public, anonymous). */
async function seed(server, user, count) {
  const { id } = await server.control('POST', 'documents', {
    title: `${count} blocks`,
    blocks: blocksOf(count),
    link_reach: user.anonymous ? 'public' : 'restricted',
    link_role: user.anonymous ? 'editor' : 'reader',
    accesses: [{ user_id: user.id, role: 'owner' }],
  });
  return id;
}

// ---------------------------------------------------------------------------------------------
// The two MCP servers behind one SDK client each

function textOf(result) {
  return (result.content ?? [])
    .filter((c) => c.type === 'text')
    .map((c) => c.text)
    .join('\n');
}

class Mcp {
  /** Spawns the server and waits for a first `tools/list`; `ms` is spawn → answer. */
  static async start(kind, ctx, dataDir) {
    const transport = kind === 'peer' ? peerTransport(ctx) : await oursTransport(ctx, dataDir);
    const client = new Client({ name: 'side-by-side', version: '1' });
    const start = performance.now();
    await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
    const { tools } = await client.listTools(undefined, { timeout: CALL_TIMEOUT_MS });
    const ms = performance.now() - start;
    if (!tools.length) throw new Error(`${kind}: no tools`);
    const mcp = new Mcp();
    Object.assign(mcp, { kind, client, transport, tools, ms, pid: transport.pid, ctx });
    return mcp;
  }

  /** Started and signed in (the peer takes the session through a tool call). */
  static async ready(kind, ctx, dataDir) {
    const mcp = await Mcp.start(kind, ctx, dataDir);
    if (kind === 'peer' && !ctx.user.anonymous) {
      const answer = await mcp.call('set_session_credentials', {
        docs_sessionid: ctx.user.session_cookie,
        csrftoken: ctx.user.csrf_token,
      });
      if (!answer.ok || answer.user?.email !== ctx.user.email) {
        throw new Error(`peer: set_session_credentials answered ${JSON.stringify(answer)}`);
      }
    }
    return mcp;
  }

  tool(name) {
    return this.tools.find((t) => t.name === name);
  }

  /** Calls a tool that must succeed: ours' structured result, the peer's JSON text. */
  async call(name, args) {
    this.calls = (this.calls ?? 0) + 1;
    const result = await this.client.callTool({ name, arguments: args }, undefined, {
      timeout: CALL_TIMEOUT_MS,
    });
    if (result.isError) throw new Error(`${this.kind} ${name} failed: ${textOf(result).slice(0, 2000)}`);
    if (this.kind === 'ours') return result.structuredContent;
    return JSON.parse(textOf(result));
  }

  /** Calls a tool that may fail: whether it did, and its text. */
  async tryCall(name, args) {
    const result = await this.client.callTool({ name, arguments: args }, undefined, {
      timeout: CALL_TIMEOUT_MS,
    });
    return { ok: !result.isError, text: textOf(result) };
  }

  rssKib() {
    return rssKib(this.pid);
  }

  /** CPU time the process used so far (user + system), in ms. */
  cpuMs() {
    return cpuMs(this.pid);
  }

  async stop() {
    await this.client.close();
  }
}

function peerTransport(ctx) {
  return new StdioClientTransport({
    command: process.execPath,
    args: [ctx.peer],
    env: { PATH: process.env.PATH ?? '', HOME: ctx.home, DOCS_INSTANCE_URL: ctx.server.url },
    stderr: 'inherit',
  });
}

async function oursTransport(ctx, dataDir) {
  const port = await freePort();
  // As the `agent` bench: nothing under the real home, no keyring, no settings from the
  // environment but the session given here.
  return new StdioClientTransport({
    command: ctx.ours,
    args: [
      'serve',
      '--stdio',
      '--approval',
      'auto',
      '--instance',
      ctx.server.url,
      '--data-dir',
      dataDir,
      '--listen',
      `127.0.0.1:${port}`,
    ],
    env: {
      PATH: process.env.PATH ?? '',
      HOME: ctx.home,
      XDG_DATA_HOME: join(ctx.home, 'data'),
      XDG_CONFIG_HOME: join(ctx.home, 'config'),
      XDG_RUNTIME_DIR: join(ctx.home, 'run'),
      RUST_LOG: process.env.OURS_LOG ?? 'warn',
      DOCS_MCP_TOKEN: TOKEN,
      ...(ctx.user.anonymous
        ? {}
        : { DOCS_SESSION_COOKIE: ctx.user.session_cookie, DOCS_CSRF_TOKEN: ctx.user.csrf_token }),
    },
    stderr: 'inherit',
  });
}

/**
 * Reads a document; checks the answer holds its text. Returns the peer's last block id. The
 * peer always answers with the whole document; ours with its first page, or `whole`: page after
 * page at the largest budget (`from_block` = the `next_block_id` of the page before) until the
 * end, as an agent asked for the whole document reads it.
 */
async function read(mcp, document, blocks, whole = false) {
  if (mcp.kind === 'peer') {
    const answer = await mcp.call('read_document', { doc_id: document });
    // The peer drops BlockNote's marks (it looks for `bold: true`, y-prosemirror writes `{}`).
    if (answer.blocks?.length !== blocks || !answer.blocks[1].text.startsWith('Paragraph 1 with some')) {
      throw new Error(`peer read of ${document}: ${JSON.stringify(answer).slice(0, 500)}`);
    }
    return answer.blocks.at(-1).id;
  }
  let markdown = '';
  let from = null;
  for (;;) {
    const args = { document };
    if (whole) args.max_chars = mcp.ctx.maxChars;
    if (from) args.from_block = from;
    const answer = await mcp.call('read_document', args);
    markdown += answer?.markdown ?? '';
    if (!whole || !answer.truncated) break;
    from = answer.next_block_id;
  }
  if (!markdown.includes('Paragraph 1 with **some**') || (whole && !markdown.includes(`Paragraph ${blocks - 1} with`))) {
    throw new Error(`ours read of ${document}${whole ? ' (whole)' : ''}: ${markdown.slice(0, 500)}`);
  }
  return null;
}

/** Calls `read` whole for ours; how many calls it took. */
async function wholeCalls(mcp, document, blocks) {
  const before = mcp.calls;
  await read(mcp, document, blocks, true);
  return mcp.calls - before;
}

async function timed(fn) {
  const start = performance.now();
  await fn();
  return performance.now() - start;
}

// ---------------------------------------------------------------------------------------------
// The other client of the inserts: a Hocuspocus provider, as a browser

class Observer {
  static async join(server, user, document) {
    const origin = server.url;
    // Anonymous: a cookie all the same (the collaboration server refuses a connection without).
    const cookie = user.anonymous
      ? 'docs_sessionid=anonymous-observer'
      : `docs_sessionid=${user.session_cookie}; csrftoken=${user.csrf_token}`;
    const res = await fetch(`${origin}/api/v1.0/documents/${document}/`, { headers: { Cookie: cookie } });
    if (!res.ok) throw new Error(`observer: GET document: HTTP ${res.status}`);
    const { content } = await res.json();
    const ydoc = new Y.Doc();
    if (content) Y.applyUpdate(ydoc, Buffer.from(content, 'base64'));
    const headers = { Origin: origin, Cookie: cookie };
    class BrowserLikeWebSocket extends WebSocket {
      constructor(url, protocols) {
        super(url, protocols, { headers });
      }
    }
    const socket = new HocuspocusProviderWebsocket({
      url: `${origin.replace(/^http/, 'ws')}/collaboration/ws/?room=${document}`,
      WebSocketPolyfill: BrowserLikeWebSocket,
    });
    const observer = new Observer();
    observer.ydoc = ydoc;
    observer.socket = socket;
    observer.probe = null;
    ydoc.on('update', (update) => {
      const seen = performance.now();
      const probe = observer.probe;
      if (probe && Buffer.from(update.buffer, update.byteOffset, update.byteLength).includes(probe.text)) {
        observer.probe = null;
        probe.resolve(seen);
      }
    });
    await new Promise((ok, fail) => {
      observer.provider = new HocuspocusProvider({
        websocketProvider: socket,
        name: document,
        document: ydoc,
        token: '',
        onSynced: () => ok(),
        onAuthenticationFailed: ({ reason }) => fail(new Error(`observer refused: ${reason}`)),
      });
      observer.provider.attach();
      setTimeout(() => fail(new Error('observer not synced after 30 s')), 30_000).unref();
    });
    return observer;
  }

  /**
   * Waits until the room holds what this client pushed into it (the server digests a large
   * document for a while after the client's sync: a read measured meanwhile would wait for it).
   */
  async heldByRoom(server, document) {
    let pushed = 0;
    for (const clock of Y.decodeStateVector(Y.encodeStateVector(this.ydoc)).values()) pushed += clock;
    const deadline = performance.now() + 60_000;
    for (;;) {
      const res = await fetch(`${server.url}/__test__/documents/${document}/live-clocks`);
      if (res.ok && (await res.json()).clocks >= pushed) return;
      if (performance.now() > deadline) throw new Error('the room never held the document');
      await sleep(50);
    }
  }

  /** The moment the update carrying `text` is applied here. */
  awaitText(text) {
    return new Promise((resolvePromise, reject) => {
      const timer = setTimeout(() => reject(new Error(`observer did not see ${text} in 10 s`)), 10_000);
      this.probe = {
        text: Buffer.from(text, 'utf8'),
        resolve: (at) => {
          clearTimeout(timer);
          resolvePromise(at);
        },
      };
    });
  }

  /** The text of the last top-level block of the observer's document. */
  lastBlockText() {
    const group = this.ydoc.getXmlFragment('document-store').get(0);
    const container = group.get(group.length - 1);
    return container.get(0).toString().replace(/<[^>]*>/g, '');
  }

  close() {
    this.provider.destroy();
    this.socket.destroy();
  }
}

// ---------------------------------------------------------------------------------------------
// The rows

async function rowStart(ctx, out) {
  const dataDir = join(ctx.home, 'starts');
  for (const kind of ctx.kinds) await (await Mcp.start(kind, ctx, dataDir)).stop();
  const ms = { peer: [], ours: [] };
  for (let i = 0; i < STARTS; i++) {
    for (const kind of ctx.kinds) {
      const mcp = await Mcp.start(kind, ctx, dataDir);
      ms[kind].push(mcp.ms);
      await mcp.stop();
    }
  }
  out.start = { peer: median(ms.peer), ours: median(ms.ours) };
  console.log(
    `start_to_first_tools_list_ms: peer ${f1(out.start.peer)}, ours ${f1(out.start.ours)} ` +
      `(p99 ${f1(p99(ms.peer))} / ${f1(p99(ms.ours))}), n=${STARTS}`,
  );
}

async function rowReads(ctx, out) {
  const peer = ctx.peer ? await Mcp.ready('peer', ctx) : null;
  const ours = await Mcp.ready('ours', ctx, join(ctx.home, 'reads'));
  largestBudget(ctx, ours);

  // 3. read of a 1 000-block document again (one document each, read once before): ours
  // with its first page, and whole (the peer's answer is always the whole document).
  const docs = { peer: await seed(ctx.server, ctx.user, 1_000), ours: await seed(ctx.server, ctx.user, 1_000) };
  if (peer) await read(peer, docs.peer, 1_000);
  await read(ours, docs.ours, 1_000);
  const wholeIn = await wholeCalls(ours, docs.ours, 1_000);
  const cached = { peer: [], ours: [], whole: [] };
  // The servers' own share of a whole read: their CPU time over the calls (the rest of the
  // wait is the pipe and the client's parsing of the answer).
  const cpu = { peer: 0, whole: 0 };
  const cpuOf = async (mcp, key, call) => {
    const before = mcp.cpuMs();
    const ms = await timed(call);
    cpu[key] += mcp.cpuMs() - before;
    return ms;
  };
  for (let i = 0; i < CACHED_READS; i++) {
    if (peer) cached.peer.push(await cpuOf(peer, 'peer', () => read(peer, docs.peer, 1_000)));
    cached.ours.push(await timed(() => read(ours, docs.ours, 1_000)));
    cached.whole.push(await cpuOf(ours, 'whole', () => read(ours, docs.ours, 1_000, true)));
  }
  out.cached = {
    peer: median(cached.peer),
    ours: median(cached.ours),
    whole: median(cached.whole),
    wholeIn,
    peerCpu: peer ? cpu.peer / CACHED_READS : undefined,
    wholeCpu: cpu.whole / CACHED_READS,
  };
  console.log(
    `read_again_1000_blocks_ms: peer ${f1(out.cached.peer)}, ours whole ${f1(out.cached.whole)} ` +
      `(${wholeIn} calls of max_chars ${ctx.maxChars}), ours first page ${f1(out.cached.ours)} ` +
      `(p99 ${f1(p99(cached.peer))} / ${f1(p99(cached.whole))} / ${f1(p99(cached.ours))}), n=${CACHED_READS}; ` +
      `server CPU per whole read: peer ${f1(out.cached.peerCpu)}, ours ${f1(out.cached.wholeCpu)} ms`,
  );
  await peer?.stop();
  await ours.stop();

  // 2. first read of a 10 000-block document, whole, as a fresh process's first call, while a
  // person's browser (a Hocuspocus provider, its Y.Doc loaded from REST) holds the room.
  const first = { peer: [], ours: [], oursIn: 0 };
  for (let i = 0; i < FIRST_READS; i++) {
    for (const kind of i % 2 === 0 ? ctx.kinds : [...ctx.kinds].reverse()) {
      const document = await seed(ctx.server, ctx.user, 10_000);
      const person = await Observer.join(ctx.server, ctx.user, document);
      await person.heldByRoom(ctx.server, document);
      const mcp = await Mcp.ready(kind, ctx, join(ctx.home, `first-${i}`));
      const before = mcp.calls ?? 0;
      first[kind].push(await timed(() => read(mcp, document, 10_000, true)));
      if (kind === 'ours') first.oursIn = mcp.calls - before;
      await mcp.stop();
      person.close();
    }
  }
  out.first = { peer: median(first.peer), ours: median(first.ours), oursIn: first.oursIn };
  console.log(
    `first_read_10000_blocks_whole_fresh_process_person_in_room_ms: peer ${f1(out.first.peer)}, ` +
      `ours ${f1(out.first.ours)} (${first.oursIn} calls) (p99 ${f1(p99(first.peer))} / ${f1(p99(first.ours))}), n=${FIRST_READS}`,
  );
}

/** The largest budget ours reads with: its schema's maximum, else the one its description gives. */
function largestBudget(ctx, ours) {
  const budget = ours.tool('read_document')?.inputSchema?.properties?.max_chars;
  const maxChars = budget?.maximum ?? Number(budget?.description?.match(/at most (\d+)/)?.[1]);
  ctx.maxChars = Number.isFinite(maxChars) ? maxChars : 100_000;
}

// 8. a 50 000-block document a person holds in the room, a fresh process of each: the first
// read, whole (as row 2); ours' outline and one section; then inserts one after the other
// (as row 4, without the observer's wait): the CPU time each costs the server (its utime +
// stime over all of them; the first apart from each one after it), and its RSS once read and
// after the inserts.
async function rowHuge(ctx, out) {
  const huge = { oursIn: 0 };
  for (const kind of ctx.kinds) {
    const document = await seed(ctx.server, ctx.user, 50_000);
    const person = await Observer.join(ctx.server, ctx.user, document);
    await person.heldByRoom(ctx.server, document);
    const mcp = await Mcp.ready(kind, ctx, join(ctx.home, `huge-${kind}`));
    if (kind === 'ours') largestBudget(ctx, mcp);
    const before = mcp.calls ?? 0;
    let last = null;
    const side = {};
    side.read = await timed(async () => {
      last = await read(mcp, document, 50_000, true);
    });
    if (kind === 'ours') {
      huge.oursIn = mcp.calls - before;
      side.outline = await timed(() => mcp.call('get_outline', { document }));
      side.section = await timed(() => mcp.call('read_document', { document, section: 'Section 25000' }));
    }
    side.rssRead = mcp.rssKib() / 1024;
    const cpuBefore = mcp.cpuMs();
    const answered = [];
    for (let i = 0; i < HUGE_INSERTS; i++) {
      const text = `Huge probe ${i} ${randomUUID()}`;
      const start = performance.now();
      if (kind === 'peer') {
        const answer = await mcp.call('insert_block', {
          doc_id: document,
          content: { type: 'paragraph', text },
          after_block_id: last,
        });
        last = answer.block_id;
      } else {
        const answer = await mcp.call('insert_blocks', { document, position: { at: 'end' }, markdown: text });
        if (answer.status !== 'applied') throw new Error(`ours insert: ${JSON.stringify(answer)}`);
      }
      answered.push(performance.now() - start);
      if (i === 0) side.cpuFirstInsert = mcp.cpuMs() - cpuBefore;
    }
    side.cpuPerInsert = (mcp.cpuMs() - cpuBefore) / HUGE_INSERTS;
    // Apart: the first (ours copies the document for its fork there) and each one after it.
    side.cpuPerLaterInsert = (side.cpuPerInsert * HUGE_INSERTS - side.cpuFirstInsert) / (HUGE_INSERTS - 1);
    side.answered = median(answered);
    side.rssInserts = mcp.rssKib() / 1024;
    // And once what the inserts left to do is done (a save, the next fork, memory handed back).
    await new Promise((resolve) => setTimeout(resolve, HUGE_SETTLE_MS));
    side.rssSettled = mcp.rssKib() / 1024;
    huge[kind] = side;
    await mcp.stop();
    person.close();
  }
  out.huge = huge;
  const [p, o] = [huge.peer ?? {}, huge.ours];
  console.log(
    `first_read_50000_blocks_whole_fresh_process_person_in_room_ms: peer ${f1(p.read)}, ` +
      `ours ${f1(o.read)} (${huge.oursIn} calls), n=1`,
  );
  console.log(`outline_50000_blocks_ms: ours ${f1(o.outline)}; section_50000_blocks_ms: ours ${f1(o.section)}`);
  console.log(
    `insert_50000_blocks_cpu_ms: peer ${f1(p.cpuPerInsert)}, ours ${f1(o.cpuPerInsert)} ` +
      `(the first: ${f1(p.cpuFirstInsert)} / ${f1(o.cpuFirstInsert)}, each after it: ` +
      `${f1(p.cpuPerLaterInsert)} / ${f1(o.cpuPerLaterInsert)}; ` +
      `answered: ${f1(p.answered)} / ${f1(o.answered)} ms, median), n=${HUGE_INSERTS}`,
  );
  console.log(
    `rss_50000_blocks_mib: peer ${f1(p.rssRead)} read, ${f1(p.rssInserts)} after the inserts ` +
      `(${f1(p.rssSettled)} ${HUGE_SETTLE_MS / 1000} s later); ours ${f1(o.rssRead)} read, ` +
      `${f1(o.rssInserts)} after the inserts (${f1(o.rssSettled)} ${HUGE_SETTLE_MS / 1000} s later)`,
  );
}

// 6. bytes on the wire for a one-word change in a 2 KB paragraph: what the test server
// receives over the WebSocket in the document's room (its `ws_bytes_in`; nobody else is in the
// room) over one call, once the change is in the room: the peer's `update_block` (the whole
// text, one word changed: its only way), ours' `replace_text` of the word (and `update_block`
// of the whole text, printed apart). Median of 5, after one change not counted. Saves (REST)
// are not counted: the peer saves the whole document after each edit, ours a minute apart.
async function rowBytes(ctx, out) {
  const words = Array.from({ length: 300 }, (_, i) => `word${i}`);
  const paragraph = (word) => `${words.slice(0, 150).join(' ')} ${word} ${words.slice(150).join(' ')}`;
  const bytes = {};
  for (const kind of ctx.kinds) {
    const { id: document } = await ctx.server.control('POST', 'documents', {
      title: '2 KB',
      blocks: [{ id: randomUUID(), type: 'paragraph', content: [run(paragraph('pivotal'), false)], children: [] }],
      link_reach: ctx.user.anonymous ? 'public' : 'restricted',
      link_role: ctx.user.anonymous ? 'editor' : 'reader',
      accesses: [{ user_id: ctx.user.id, role: 'owner' }],
    });
    const mcp = await Mcp.ready(kind, ctx, join(ctx.home, `bytes-${kind}`));
    const block = kind === 'peer'
      ? (await mcp.call('read_document', { doc_id: document })).blocks[0].id
      : (await mcp.call('read_document', { document, anchors: false })).block_ids[0];
    const received = async () => (await ctx.server.control('GET', 'stats')).ws_bytes_in[document] ?? 0;
    const quiet = async () => {
      // Until nothing more comes in for 150 ms: the change is in the room.
      let last = await received();
      for (;;) {
        await sleep(150);
        const now = await received();
        if (now === last) return now;
        last = now;
      }
    };
    const sent = { replace: [], update: [] };
    let word = 'pivotal';
    for (let i = 0; i < 2 * (ONE_WORD_EDITS + 1); i++) {
      const other = word === 'pivotal' ? 'central' : 'pivotal';
      const how = kind === 'peer' || i % 2 === 1 ? 'update' : 'replace';
      if (kind === 'peer' && i % 2 === 1) continue;
      if (kind === 'ours') await mcp.call('read_document', { document });
      const before = await quiet();
      if (kind === 'peer') {
        await mcp.call('update_block', { doc_id: document, block_id: block, text: paragraph(other) });
      } else if (how === 'replace') {
        const answer = await mcp.call('replace_text', { document, old_text: word, new_text: other });
        if (answer.status !== 'applied') throw new Error(`ours replace_text: ${JSON.stringify(answer)}`);
      } else {
        const answer = await mcp.call('update_block', { document, block_id: block, text: paragraph(other) });
        if (answer.status !== 'applied') throw new Error(`ours update_block: ${JSON.stringify(answer)}`);
      }
      const after = await quiet();
      // The first change of each kind is not counted (a first connection's sync).
      if (i >= 2) sent[how].push(after - before);
      word = other;
    }
    bytes[kind] = { replace: median(sent.replace), update: median(sent.update) };
    await mcp.stop();
  }
  out.bytes = { peer: bytes.peer?.update, ours: bytes.ours.replace, oursUpdate: bytes.ours.update };
  console.log(
    `one_word_change_bytes: peer ${f1(out.bytes.peer)} (update_block), ours ${f1(out.bytes.ours)} ` +
      `(replace_text; update_block: ${f1(out.bytes.oursUpdate)}), n=${ONE_WORD_EDITS}`,
  );
}

// 7. 50 documents asked at once (50 concurrent `read_document`, the default page) by a fresh
// process of each, on a second test server that throttles as Docs does (80 REST calls a
// minute per user; a user of its own for each server): answered, refused, and the time until
// the last answer.
async function rowAtOnce(ctx, out) {
  const server = await DocsServer.start(ctx.docsServer, 80);
  try {
    const atOnce = {};
    for (const kind of ctx.kinds) {
      const user = await server.control('POST', 'users', { email: `at-once-${kind}@example.org`, full_name: kind });
      user.anonymous = ctx.user.anonymous;
      const documents = [];
      for (let i = 0; i < AT_ONCE; i++) documents.push(await seed(server, user, 20));
      const kindCtx = { ...ctx, server, user };
      const mcp = await Mcp.ready(kind, kindCtx, join(ctx.home, `at-once-${kind}`));
      const start = performance.now();
      const results = await Promise.all(
        documents.map((document) =>
          mcp.tryCall('read_document', kind === 'peer' ? { doc_id: document } : { document }),
        ),
      );
      const ms = performance.now() - start;
      const answered = results.filter((r) => r.ok).length;
      const limited = results.filter((r) => !r.ok && /RATE_LIMITED|429|throttl/i.test(r.text)).length;
      const other = results.filter((r) => !r.ok).map((r) => r.text).filter((t) => !/RATE_LIMITED|429|throttl/i.test(t));
      atOnce[kind] = { answered, limited, failed: other.length, ms, example: other[0]?.slice(0, 200) };
      await mcp.stop();
    }
    out.atOnce = atOnce;
    for (const kind of ctx.kinds) {
      const a = atOnce[kind];
      console.log(
        `at_once_${AT_ONCE}_documents_${kind}: ${a.answered} answered, ${a.limited} rate-limited, ` +
          `${a.failed} failed otherwise${a.example ? ` (${JSON.stringify(a.example)})` : ''}, in ${f1(a.ms)} ms`,
      );
    }
  } finally {
    server.stop();
  }
}

// 9. the app's footprint (`--app`): `scripts/app-footprint.sh` with that build, its figures.
async function rowApp(ctx, out) {
  const script = resolve(HERE, '../../../../scripts/app-footprint.sh');
  const child = spawn(script, [], { env: { ...process.env, APP: ctx.app }, stdio: ['ignore', 'pipe', 'inherit'] });
  let text = '';
  child.stdout.setEncoding('utf8');
  child.stdout.on('data', (d) => {
    text += d;
  });
  const code = await new Promise((ok) => child.once('exit', ok));
  if (code !== 0) throw new Error(`app-footprint.sh exited ${code}: ${text}`);
  const figure = (label) => {
    const m = text.match(new RegExp(`${label}[^:]*: (\\d+) MiB PSS, (\\d+) MiB RSS`));
    return m ? { pss: Number(m[1]), rss: Number(m[2]) } : null;
  };
  out.app = { tray: figure('tray only'), window: figure('window open') };
  for (const line of text.trim().split('\n')) console.log(`app_footprint: ${line}`);
}

async function rowInsert(ctx, out, runIndex) {
  const peer = ctx.peer ? await Mcp.ready('peer', ctx) : null;
  const ours = await Mcp.ready('ours', ctx, join(ctx.home, 'inserts'));
  const sides = [];
  for (const mcp of peer ? [peer, ours] : [ours]) {
    const document = await seed(ctx.server, ctx.user, 1_000);
    const observer = await Observer.join(ctx.server, ctx.user, document);
    const last = await read(mcp, document, 1_000);
    sides.push({ mcp, document, observer, last, visible: [], answered: [] });
  }
  // Not alternated insert by insert: what follows a signed-in peer insert (its PATCH of the
  // whole document, answered with the whole document) slowed the next insert of ours from 3 to
  // 9 ms. Each does its 100 in a row, the first alternating between runs.
  for (const side of runIndex % 2 === 0 ? sides : [...sides].reverse()) {
    for (let i = 0; i < INSERTS; i++) {
      const marker = randomUUID().replaceAll('-', '');
      const text = `Probe ${i} ${marker}`;
      const seen = side.observer.awaitText(marker);
      const start = performance.now();
      if (side.mcp.kind === 'peer') {
        const answer = await side.mcp.call('insert_block', {
          doc_id: side.document,
          content: { type: 'paragraph', text },
          after_block_id: side.last,
        });
        // Signed in, it persists the document itself; anonymous, it warns that it does not.
        if (!answer.block_id || Boolean(answer.warning) !== ctx.user.anonymous) throw new Error(`peer insert: ${JSON.stringify(answer)}`);
        side.last = answer.block_id;
      } else {
        const answer = await side.mcp.call('insert_blocks', {
          document: side.document,
          position: { at: 'end' },
          markdown: text,
        });
        if (answer.status !== 'applied') throw new Error(`ours insert: ${JSON.stringify(answer)}`);
      }
      side.answered.push(performance.now() - start);
      side.visible.push((await seen) - start);
      const shown = side.observer.lastBlockText();
      if (shown !== text) throw new Error(`${side.mcp.kind}: the observer's last block is ${JSON.stringify(shown)}`);
    }
  }
  for (const side of sides) {
    out[`insert_${side.mcp.kind}`] = {
      visible: median(side.visible),
      visible99: p99(side.visible),
      answered: median(side.answered),
      answered99: p99(side.answered),
    };
    side.observer.close();
  }
  const [p, o] = [out.insert_peer ?? {}, out.insert_ours];
  console.log(
    `insert_visible_at_other_client_ms: peer ${f1(p.visible)} (p99 ${f1(p.visible99)}), ` +
      `ours ${f1(o.visible)} (p99 ${f1(o.visible99)}), n=${INSERTS}, 1 000 blocks`,
  );
  console.log(
    `insert_answered_ms: peer ${f1(p.answered)} (p99 ${f1(p.answered99)}), ` +
      `ours ${f1(o.answered)} (p99 ${f1(o.answered99)}), n=${INSERTS}`,
  );
  await peer?.stop();
  await ours.stop();
}

async function rowRss(ctx, out) {
  for (const blocks of [1_000, 200]) {
    const documents = [];
    for (let i = 0; i < RSS_DOCUMENTS; i++) documents.push(await seed(ctx.server, ctx.user, blocks));
    const rss = {};
    for (const kind of ctx.kinds) {
      const mcp = await Mcp.ready(kind, ctx, join(ctx.home, `memory-${blocks}-${randomUUID()}`));
      const atStart = mcp.rssKib();
      for (const document of documents) await read(mcp, document, blocks);
      rss[kind] = mcp.rssKib() / 1024;
      rss[`${kind}_start`] = atStart / 1024;
      await mcp.stop();
    }
    out[`rss_${blocks}`] = rss;
    console.log(
      `rss_after_reading_${RSS_DOCUMENTS}_documents_of_${blocks}_blocks_mib: peer ${f1(rss.peer)} ` +
        `(${f1(rss.peer_start)} after start), ours ${f1(rss.ours)} (${f1(rss.ours_start)} after start)`,
    );
  }
}

// ---------------------------------------------------------------------------------------------

function table(runs) {
  const cell = (fn) => runs.map(fn).join(' / ');
  const has = (key) => runs.every((r) => r[key] !== undefined);
  const rows = [];
  if (has('start')) {
    rows.push([
      'start → first `tools/list` (median of 10)',
      cell((r) => `${f1(r.start.peer)}`) + ' ms',
      cell((r) => `${f1(r.start.ours)}`) + ' ms',
      cell((r) => f1(r.start.peer / r.start.ours)),
    ]);
  }
  if (has('first')) {
    rows.push([
      'first read of a 10 000-block document, whole, a fresh process\'s first call, a person\'s browser in the room (median of 5)',
      cell((r) => f1(r.first.peer)) + ' ms',
      `${cell((r) => f1(r.first.ours))} ms (${cell((r) => r.first.oursIn)} calls)`,
      cell((r) => f1(r.first.peer / r.first.ours)),
    ]);
  }
  if (has('cached')) {
    rows.push([
      'read of a 1 000-block document, whole, again (median of 50)',
      cell((r) => f1(r.cached.peer)) + ' ms',
      `${cell((r) => f1(r.cached.whole))} ms (${cell((r) => r.cached.wholeIn)} calls; first page: ${cell((r) => f1(r.cached.ours))})`,
      `${cell((r) => f1(r.cached.peer / r.cached.whole))} (first page: ${cell((r) => f1(r.cached.peer / r.cached.ours))})`,
    ]);
    rows.push([
      '… the server\'s CPU per whole read (its share of the wait)',
      cell((r) => f1(r.cached.peerCpu)) + ' ms',
      cell((r) => f1(r.cached.wholeCpu)) + ' ms',
      cell((r) => f1(r.cached.peerCpu / r.cached.wholeCpu)),
    ]);
  }
  if (has('insert_ours')) {
    const p = (r) => r.insert_peer ?? {};
    const o = (r) => r.insert_ours;
    rows.push([
      'insert → visible at another client (100 in a row, 1 000 blocks)',
      `${cell((r) => f1(p(r).visible))} ms (p99 ${cell((r) => f1(p(r).visible99))})`,
      `${cell((r) => f1(o(r).visible))} ms (p99 ${cell((r) => f1(o(r).visible99))})`,
      `${cell((r) => f1(p(r).visible / o(r).visible))} (p99 ${cell((r) => f1(p(r).visible99 / o(r).visible99))})`,
    ]);
    rows.push([
      '… the insert answered',
      cell((r) => f1(p(r).answered)) + ' ms',
      cell((r) => f1(o(r).answered)) + ' ms',
      cell((r) => f1(p(r).answered / o(r).answered)),
    ]);
  }
  for (const [key, what] of [
    ['rss_1000', `RSS after reading ${RSS_DOCUMENTS} documents of 1 000 blocks`],
    ['rss_200', '… of 200 blocks'],
  ]) {
    if (!has(key)) continue;
    rows.push([
      what,
      cell((r) => f1(r[key].peer)) + ' MiB',
      cell((r) => f1(r[key].ours)) + ' MiB',
      cell((r) => f1(r[key].peer / r[key].ours)),
    ]);
  }
  if (has('bytes')) {
    rows.push([
      'bytes on the wire for a one-word change in a 2 KB paragraph (median of 5)',
      cell((r) => f1(r.bytes.peer)) + ' B',
      `${cell((r) => f1(r.bytes.ours))} B (update_block: ${cell((r) => f1(r.bytes.oursUpdate))})`,
      cell((r) => f1(r.bytes.peer / r.bytes.ours)),
    ]);
  }
  const lines = ['| what an agent waits for | peer | docs-mcp | peer ÷ docs-mcp |', '|---|---|---|---|'];
  for (const row of rows) lines.push(`| ${row.join(' | ')} |`);
  const scale = [];
  if (has('atOnce')) {
    const a = (r, kind) => r.atOnce[kind] ?? {};
    const said = (x) => (x.answered === undefined ? '—' : `${x.answered} / ${x.limited} / ${x.failed}, ${f1(x.ms)} ms`);
    scale.push([
      `${AT_ONCE} documents asked at once, Docs' throttle (answered / rate-limited / failed, time)`,
      cell((r) => said(a(r, 'peer'))),
      cell((r) => said(a(r, 'ours'))),
    ]);
  }
  if (has('huge')) {
    const h = (r, kind) => r.huge[kind] ?? {};
    scale.push([
      'a 50 000-block document, a person in the room: first read, whole',
      cell((r) => f1(h(r, 'peer').read)) + ' ms',
      `${cell((r) => f1(h(r, 'ours').read))} ms (${cell((r) => r.huge.oursIn)} calls)`,
    ]);
    scale.push([
      '… its outline; one section',
      '—',
      `${cell((r) => f1(h(r, 'ours').outline))} ms; ${cell((r) => f1(h(r, 'ours').section))} ms`,
    ]);
    scale.push([
      `… CPU per insert (${HUGE_INSERTS} in a row; answered, median)`,
      `${cell((r) => f1(h(r, 'peer').cpuPerInsert))} ms (${cell((r) => f1(h(r, 'peer').answered))} ms)`,
      `${cell((r) => f1(h(r, 'ours').cpuPerInsert))} ms (${cell((r) => f1(h(r, 'ours').answered))} ms)`,
    ]);
    scale.push([
      '… of it, the first insert; each one after it',
      `${cell((r) => f1(h(r, 'peer').cpuFirstInsert))} ms; ${cell((r) => f1(h(r, 'peer').cpuPerLaterInsert))} ms`,
      `${cell((r) => f1(h(r, 'ours').cpuFirstInsert))} ms; ${cell((r) => f1(h(r, 'ours').cpuPerLaterInsert))} ms`,
    ]);
    scale.push([
      `… RSS once read → right after the inserts → ${HUGE_SETTLE_MS / 1000} s later`,
      cell((r) => `${f1(h(r, 'peer').rssRead)} → ${f1(h(r, 'peer').rssInserts)} → ${f1(h(r, 'peer').rssSettled)}`) + ' MiB',
      cell((r) => `${f1(h(r, 'ours').rssRead)} → ${f1(h(r, 'ours').rssInserts)} → ${f1(h(r, 'ours').rssSettled)}`) + ' MiB',
    ]);
  }
  if (has('app')) {
    const said = (x) => (x ? `${x.pss} MiB PSS (${x.rss} RSS)` : '—');
    scale.push(['the app, tray only', '', cell((r) => said(r.app.tray))]);
    scale.push(['the app, window open', '', cell((r) => said(r.app.window))]);
  }
  if (scale.length) {
    lines.push('', '| scale | peer | docs-mcp |', '|---|---|---|');
    for (const row of scale) lines.push(`| ${row.join(' | ')} |`);
  }
  return lines.join('\n');
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  console.log(`load_average_at_start: ${loadAverage()}`);
  const server = await DocsServer.start(opts.docsServer);
  const home = join(tmpdir(), `docs-mcp-side-by-side-${randomUUID()}`);
  mkdirSync(home, { recursive: true });
  try {
    const user = await server.control('POST', 'users', { email: 'bench@example.org', full_name: 'Bench' });
    user.anonymous = opts.anonymous;
    const ctx = {
      peer: opts.peer,
      ours: opts.ours,
      app: opts.app,
      kinds: opts.kinds,
      docsServer: opts.docsServer,
      server,
      user,
      home,
    };
    const versions = { peer: 'not measured (no --peer)' };
    for (const kind of ctx.kinds) {
      const mcp = await Mcp.start(kind, ctx, join(home, 'versions'));
      const info = mcp.client.getServerVersion();
      versions[kind] = `${info?.name} ${info?.version} (${mcp.tools.length} tools)`;
      await mcp.stop();
    }
    console.log(`peer: ${versions.peer}${opts.peer ? `, ${opts.peer}` : ''}`);
    console.log(`ours: ${versions.ours}, ${opts.ours}`);
    console.log(`test_server: ${server.url} (--legacy-content --throttle-rate 0)`);
    console.log(`session: ${opts.anonymous ? 'anonymous, public documents' : 'signed in, restricted documents'}`);
    const runs = [];
    for (let r = 0; r < opts.runs; r++) {
      if (opts.runs > 1) console.log(`run ${r + 1} (load average ${loadAverage()})`);
      const out = {};
      if (opts.rows.includes('start')) await rowStart(ctx, out);
      if (opts.rows.includes('reads')) await rowReads(ctx, out);
      if (opts.rows.includes('insert')) await rowInsert(ctx, out, r);
      if (opts.rows.includes('rss')) await rowRss(ctx, out);
      if (opts.rows.includes('bytes')) await rowBytes(ctx, out);
      if (opts.rows.includes('at-once')) await rowAtOnce(ctx, out);
      if (opts.rows.includes('huge')) await rowHuge(ctx, out);
      if (ctx.app) await rowApp(ctx, out);
      runs.push(out);
    }
    console.log(`load_average_at_end: ${loadAverage()}`);
    console.log(`\n${table(runs)}`);
  } catch (e) {
    console.error(`test server's last lines:\n${server.log.join('').split('\n').slice(-20).join('\n')}`);
    throw e;
  } finally {
    server.stop();
    rmSync(home, { recursive: true, force: true });
  }
  // Nothing left to wait for (the observers' sockets are closed, the servers stopped).
  await sleep(100);
  process.exit(0);
}

main().catch((e) => {
  console.error(e);
  process.exit(1);
});

// The collaboration server: the real @hocuspocus/server, set up like Docs' y-provider
// (wsSecurity origin/cookie checks, onConnect room + abilities checks, no persistence).
import { Hocuspocus } from '@hocuspocus/server';
import { WebSocketServer } from 'ws';

import { parseCookies } from './http.mjs';
import { isUuid4 } from './store.mjs';
import { socketControls } from './sockets.mjs';

export const WS_PATH = '/collaboration/ws/';

export function createCollab({ store, state, stats }) {
  const sockets = new Set();
  const wss = new WebSocketServer({ noServer: true, perMessageDeflate: false });

  const hocuspocus = new Hocuspocus({
    name: 'docs-collaboration',
    timeout: 30000,
    quiet: true,
    async onConnect({ requestHeaders, connectionConfig, documentName, requestParameters, context }) {
      const room = requestParameters.get('room');
      stats.room_joins[documentName] = (stats.room_joins[documentName] || 0) + 1;
      if (documentName !== room) {
        throw new Error('Wrong room name: Unauthorized');
      }
      if (!isUuid4(documentName)) {
        throw new Error('Wrong room name: Unauthorized');
      }
      // Docs asks its backend GET /api/v1.0/documents/<room>/ with the client's cookie;
      // here the same lookup is done in-process.
      const cookies = parseCookies(requestHeaders.cookie);
      const sessionKey = cookies.docs_sessionid;
      const user = store.userForSession(sessionKey);
      const doc = store.documents.get(documentName);
      if (!doc || doc.deleted_at) {
        throw new Error('Backend error: Unauthorized');
      }
      const abilities = store.abilities(doc, user);
      if (!abilities.retrieve) {
        throw new Error('Wrong abilities:Unauthorized');
      }
      connectionConfig.readOnly = !abilities.update;
      if (sessionKey) context.sessionKey = sessionKey;
      if (user) context.userId = user.id;
      if (user) doc.linkTraces.add(user.id);
    },
  });

  let down = false;

  function handleUpgrade(req, socket, head) {
    let url;
    try {
      url = new URL(req.url, state.origin);
    } catch {
      socket.destroy();
      return;
    }
    if (url.pathname !== WS_PATH && url.pathname !== WS_PATH.slice(0, -1)) {
      socket.write('HTTP/1.1 404 Not Found\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      socket.destroy();
      return;
    }
    if (down) {
      // The collaboration server is down behind the proxy (REST still answers).
      socket.write('HTTP/1.1 502 Bad Gateway\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
      socket.destroy();
      return;
    }
    wss.handleUpgrade(req, socket, head, (ws) => {
      // The room this socket was opened for (Docs' clients open one socket per document).
      ws.room = url.searchParams.get('room')?.toLowerCase() ?? null;
      sockets.add(ws);
      stats.ws_accepted += 1;
      ws.on('close', () => sockets.delete(ws));
      ws.on('message', (data) => {
        if (ws.room) stats.ws_bytes_in[ws.room] = (stats.ws_bytes_in[ws.room] || 0) + data.length;
      });
      ws.on('error', (err) => console.error('[docs-server] websocket error:', err.message));
      // Docs' wsSecurity middleware.
      const origin = req.headers.origin;
      if (!origin || !state.allowedOrigins.includes(origin)) {
        ws.close(4001, 'Origin not allowed');
        return;
      }
      if (!req.headers.cookie) {
        ws.close(4001, 'No cookies');
        return;
      }
      try {
        hocuspocus.handleConnection(ws, req);
      } catch (error) {
        console.error('[docs-server] failed to handle WebSocket connection:', error);
        ws.close();
      }
    });
  }

  return {
    ...socketControls(sockets),
    kind: 'hocuspocus',
    hocuspocus,
    handleUpgrade,
    /** Custom attributions are a yhub feature: none here. */
    attributions() {
      return { connections: [], patches: [] };
    },
    /** Like Docs' get-document-connection-info: how many connections, and is this session one. */
    connectionInfo(docId, sessionKey) {
      const doc = hocuspocus.documents.get(docId);
      if (!doc) return { count: 0, exists: false };
      const connections = doc.getConnections();
      return {
        count: doc.getConnectionsCount(),
        exists: Boolean(sessionKey) && connections.some((c) => c.context?.sessionKey === sessionKey),
      };
    },
    /** What Docs does on a rights change: Hocuspocus closeConnections(room). */
    resetConnections(docId) {
      hocuspocus.closeConnections(docId);
    },
    /**
     * Takes the collaboration server down (`true`: every open WebSocket is terminated and new
     * ones are refused with 502, as a proxy does in front of a dead y-provider; REST keeps
     * answering) or brings it back (`false`).
     */
    setDown(value) {
      down = value;
      if (down) for (const ws of [...sockets]) ws.terminate();
    },
    /** yhub only (Hocuspocus clients fall back on nothing). */
    refuseSocketsOf() {
      throw new Error('refusing some clients\' sockets is a yhub mode control');
    },
    liveDocument(docId) {
      return hocuspocus.documents.get(docId) || null;
    },
    wsCounts() {
      const out = {};
      for (const [name, doc] of hocuspocus.documents) out[name] = doc.getConnectionsCount();
      return out;
    },
    awareness(docId) {
      const doc = hocuspocus.documents.get(docId);
      if (!doc) return null;
      return [...doc.awareness.getStates()].map(([clientId, st]) => ({ clientId, state: st }));
    },
    close() {
      for (const ws of [...sockets]) ws.terminate();
      wss.close();
    },
  };
}

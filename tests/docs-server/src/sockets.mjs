// What the test controls do to the collaboration sockets, whichever server holds them
// (collab.mjs: Hocuspocus; collab-yhub.mjs: the y-websocket server). Each socket carries the
// room it was opened for (`ws.room`).

/** Controls over a live set of WebSockets. */
export function socketControls(sockets) {
  return {
    /** Terminates every WebSocket abruptly (no close frame); how many there were. */
    dropAll() {
      const n = sockets.size;
      for (const ws of [...sockets]) ws.terminate();
      return n;
    },
    /**
     * Freezes the open connections of a room (every room when `docId` is null), like a
     * network path that died without closing: the TCP connection stays open, but the server
     * neither reads from it (no pongs, no answers: what the client sends waits in the kernel's
     * buffers) nor writes to it (what it would send is held back). Connections opened later are
     * not frozen. The server's own keepalive (a ping every 30 s) still closes a connection
     * frozen past one missed pong, as it would a dead one. Returns how many were frozen.
     */
    freeze(docId) {
      let n = 0;
      for (const ws of sockets) {
        if ((docId === null || ws.room === docId) && !ws.frozen && ws.readyState === ws.OPEN) {
          ws.frozen = true;
          ws.pause(); // no more 'message' or 'ping' events: nothing is read, nothing answered
          ws._socket.cork(); // everything written is held back until uncorked
          n += 1;
        }
      }
      return n;
    },
    /** Undoes `freeze`: held-back messages go out and the client's messages are read, in order. */
    unfreeze(docId) {
      let n = 0;
      for (const ws of sockets) {
        if ((docId === null || ws.room === docId) && ws.frozen) {
          ws.frozen = false;
          ws._socket.uncork();
          ws.resume();
          n += 1;
        }
      }
      return n;
    },
    openSockets() {
      return sockets.size;
    },
  };
}

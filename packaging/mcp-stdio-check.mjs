// Starts an MCP server over stdio as an MCP client would (Claude Desktop with the .mcpb),
// initializes, lists the tools and prints their names as a JSON array; fails after 60 s.
// With MCP_CHECK_AGAIN_AFTER=FILE, it then keeps the session open until FILE exists and
// lists the tools again in the same session (which must give the same names).
// Usage: node packaging/mcp-stdio-check.mjs STDERR_FILE COMMAND [ARGS...]
import { spawn } from "node:child_process";
import { openSync } from "node:fs";

const [stderrFile, command, ...args] = process.argv.slice(2);
const child = spawn(command, args, { stdio: ["pipe", "pipe", openSync(stderrFile, "w")] });
const timer = setTimeout(() => fail("no answer within 60 s"), 60_000);

function fail(why) {
  console.error(`mcp-stdio-check: ${why} (the server's stderr: ${stderrFile})`);
  child.kill();
  process.exit(1);
}

const waiting = new Map();
let buffer = "";
child.stdout.setEncoding("utf8");
child.stdout.on("data", (chunk) => {
  buffer += chunk;
  let newline;
  while ((newline = buffer.indexOf("\n")) >= 0) {
    const line = buffer.slice(0, newline).trim();
    buffer = buffer.slice(newline + 1);
    if (!line) continue;
    const message = JSON.parse(line);
    const resolve = waiting.get(message.id);
    if (resolve) {
      waiting.delete(message.id);
      resolve(message);
    }
  }
});
child.on("exit", (code) => {
  if (waiting.size > 0) fail(`the server exited (${code}) before answering`);
});

let nextId = 1;
function request(method, params) {
  const id = nextId++;
  child.stdin.write(JSON.stringify({ jsonrpc: "2.0", id, method, params }) + "\n");
  return new Promise((resolve) => waiting.set(id, resolve)).then((message) => {
    if (message.error) fail(`${method}: ${JSON.stringify(message.error)}`);
    return message.result;
  });
}

const init = await request("initialize", {
  protocolVersion: "2025-06-18",
  capabilities: {},
  clientInfo: { name: "package-test", version: "1.0" },
});
if (!init?.serverInfo) fail(`initialize answered ${JSON.stringify(init)}`);
child.stdin.write(JSON.stringify({ jsonrpc: "2.0", method: "notifications/initialized" }) + "\n");
const names = async () =>
  JSON.stringify((await request("tools/list", {})).tools.map((tool) => tool.name).sort());
const first = await names();
clearTimeout(timer);
console.log(first);
const againAfter = process.env.MCP_CHECK_AGAIN_AFTER;
if (againAfter) {
  const { existsSync } = await import("node:fs");
  while (!existsSync(againAfter)) await new Promise((resolve) => setTimeout(resolve, 100));
  const later = setTimeout(() => fail("no answer to the second tools/list within 60 s"), 60_000);
  const again = await names();
  clearTimeout(later);
  if (again !== first) fail(`the second tools/list gave ${again}`);
}
child.stdin.end();
const exited = new Promise((resolve) => child.on("exit", resolve));
const late = setTimeout(() => child.kill(), 10_000);
await exited;
clearTimeout(late);

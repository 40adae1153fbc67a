// A scripted agent on the official TypeScript MCP SDK (@modelcontextprotocol/sdk), run by
// crates/docs-mcp/tests/ts_sdk.rs against the Docs MCP service.
//
//   node client.mjs http <mcp-url> <token> <document-id>
//   node client.mjs stdio <path-to-docs-mcp> <document-id> -- <args...>   (env passed through)
//
// It lists the tools, then calls get_outline, read_document, insert_blocks and a replace_text
// that must fail with TEXT_NOT_FOUND, all through `client.callTool`, so the SDK validates each
// result's structuredContent against the tool's outputSchema. It prints one JSON line
// summarising what it got, and exits non-zero (the error on stderr) on anything unexpected.

import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";

const USAGE =
  "usage: node client.mjs http <mcp-url> <token> <document-id>\n" +
  "       node client.mjs stdio <path-to-docs-mcp> <document-id> -- <args...>";

function parseArgs(argv) {
  const [mode, ...rest] = argv;
  if (mode === "http" && rest.length === 3) {
    const [url, token, document] = rest;
    return {
      document,
      transport: new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { Authorization: `Bearer ${token}` } },
      }),
    };
  }
  if (mode === "stdio" && rest.length >= 3 && rest[2] === "--") {
    const [command, document, , ...args] = rest;
    return {
      document,
      transport: new StdioClientTransport({
        command,
        args,
        env: { ...process.env },
        stderr: "inherit",
      }),
    };
  }
  throw new Error(USAGE);
}

/** Text of a result's text content blocks. */
function textOf(result) {
  return (result.content ?? [])
    .filter((c) => c.type === "text")
    .map((c) => c.text)
    .join("\n");
}

/** Calls a tool that must succeed; returns its structured content. */
async function ok(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (result.isError) {
    throw new Error(`${name} failed: ${textOf(result)}`);
  }
  if (!result.structuredContent) {
    throw new Error(`${name} returned no structuredContent`);
  }
  return result.structuredContent;
}

/** Calls a tool that must fail; returns the `error` object of its JSON text body. */
async function fails(client, name, args) {
  const result = await client.callTool({ name, arguments: args });
  if (!result.isError) {
    throw new Error(`${name} should have failed: ${JSON.stringify(result)}`);
  }
  let body;
  try {
    body = JSON.parse(textOf(result));
  } catch (e) {
    throw new Error(`${name}: the error text is not JSON: ${textOf(result)}`);
  }
  const error = body?.error;
  for (const field of ["code", "message", "hint"]) {
    if (typeof error?.[field] !== "string") {
      throw new Error(`${name}: error.${field} is not a string: ${JSON.stringify(body)}`);
    }
  }
  return error;
}

async function main() {
  const { transport, document } = parseArgs(process.argv.slice(2));
  const client = new Client({ name: "ts-sdk-agent", version: "1.0.0" });
  await client.connect(transport);
  try {
    // Every page of tools; listing also gives the SDK the output schemas it validates with.
    const tools = [];
    let cursor;
    do {
      const page = await client.listTools(cursor ? { cursor } : {});
      tools.push(...page.tools);
      cursor = page.nextCursor;
    } while (cursor);
    const names = tools.map((t) => t.name).sort();

    const outline = await ok(client, "get_outline", { document });
    const read = await ok(client, "read_document", { document, format: "markdown" });
    if (typeof read.markdown !== "string" || !read.markdown.includes("First paragraph.")) {
      throw new Error(`read_document: unexpected markdown: ${JSON.stringify(read)}`);
    }
    const inserted = await ok(client, "insert_blocks", {
      document,
      position: { at: "end" },
      markdown: "Written by the **TypeScript** SDK",
      reason: "ts e2e",
    });
    const error = await fails(client, "replace_text", {
      document,
      old_text: "this text is not in the document",
      new_text: "anything",
      reason: "ts e2e",
    });

    const summary = {
      tools: names,
      outline_title: outline.title ?? null,
      revision: read.revision ?? null,
      insert_status: inserted.status ?? null,
      new_block_ids: inserted.new_block_ids ?? null,
      error_code: error.code,
      server_name: client.getServerVersion()?.name ?? null,
    };
    process.stdout.write(`${JSON.stringify(summary)}\n`);
  } finally {
    await client.close();
  }
}

main().then(
  () => process.exit(0),
  (error) => {
    process.stderr.write(`ts-sdk-agent: ${error?.stack ?? error}\n`);
    process.exit(1);
  },
);

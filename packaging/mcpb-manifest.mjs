// Writes the MCP Bundle's manifest.json (MCPB manifest 0.3) for the `docs-mcp` binary.
// Usage: node packaging/mcpb-manifest.mjs VERSION OUT_DIR [PLATFORM]
// PLATFORM: `linux` (default; the server is `server/docs-mcp`), `win32`
// (`server/docs-mcp.exe`, scripts/windows.sh) or `darwin` (`server/docs-mcp`, built on a Mac:
// docs/macos.md). The tool list comes from docs/tools.md, which
// a test keeps equal to the tool definitions.
import { readFileSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";

const [version, outDir, platform = "linux"] = process.argv.slice(2);
const executables = {
  linux: "server/docs-mcp",
  win32: "server/docs-mcp.exe",
  darwin: "server/docs-mcp",
};
if (!version || !outDir || !executables[platform]) {
  console.error("usage: node packaging/mcpb-manifest.mjs VERSION OUT_DIR [linux|win32|darwin]");
  process.exit(2);
}
const executable = executables[platform];
const root = join(dirname(fileURLToPath(import.meta.url)), "..");

// The summary table of docs/tools.md, before the first tool's section:
// | `name` | kind | what it does |
const tools = [];
const reference = readFileSync(join(root, "docs/tools.md"), "utf8");
for (const line of reference.split("\n## ")[0].split("\n")) {
  const row = /^\| `([a-z_]+)` \| [^|]+ \| (.+) \|$/.exec(line);
  if (row) tools.push({ name: row[1], description: row[2] });
}
if (tools.length === 0) {
  console.error("mcpb-manifest: no tool found in docs/tools.md");
  process.exit(1);
}

const manifest = {
  manifest_version: "0.3",
  name: "lasuite-docs-mcp",
  display_name: "La Suite Docs",
  version,
  description:
    "Lets Claude read and edit your La Suite Docs documents live, block by block, with your approval.",
  long_description:
    "Reads and edits documents of a La Suite Docs instance live, beside the people editing " +
    "them. When the Docs MCP desktop app runs, this extension relays to it: edits wait for " +
    "your approval in the app, with its sessions and sign-in. Without the app, it runs the " +
    "service itself (`docs-mcp serve --stdio`) on the instance below; decide its edits with " +
    "`docs-mcp edits list` / `docs-mcp edits approve ID`.",
  author: { name: "lasuite-docs-mcp contributors" },
  repository: { type: "git", url: "https://github.com/lasuite-docs-mcp/lasuite-docs-mcp" },
  homepage: "https://github.com/lasuite-docs-mcp/lasuite-docs-mcp",
  license: "MIT",
  icon: "icon.png",
  keywords: ["la suite", "docs", "documents", "collaboration", "blocknote"],
  server: {
    type: "binary",
    entry_point: executable,
    mcp_config: {
      command: `\${__dirname}/${executable}`,
      // Relays to the app (or another `docs-mcp serve`) when it holds the data directory;
      // otherwise serves on the instance given here.
      args: ["serve", "--stdio", "--instance", "${user_config.instance_url}"],
    },
  },
  tools,
  compatibility: { platforms: [platform] },
  user_config: {
    instance_url: {
      type: "string",
      title: "Docs instance URL",
      description:
        "Your La Suite Docs instance, e.g. https://docs.example.org. Used when the Docs MCP app " +
        "is not running; when it runs, the app's instance and sign-in are used.",
      // Required: a host that leaves an optional field blank may pass the placeholder itself.
      required: true,
    },
  },
};

writeFileSync(join(outDir, "manifest.json"), JSON.stringify(manifest, null, 2) + "\n");
console.log(`mcpb-manifest: ${join(outDir, "manifest.json")} (${tools.length} tools)`);

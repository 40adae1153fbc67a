import { readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { describe, expect, it } from "vitest";

function files(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    return statSync(path).isDirectory() ? files(path) : [path];
  });
}

describe("boundaries", () => {
  it("only src/rpc.ts imports @tauri-apps/*", () => {
    const src = join(__dirname, "../src");
    const importers = files(src)
      .filter((f) => f.endsWith(".ts") && /from\s+["']@tauri-apps\//.test(readFileSync(f, "utf8")))
      .map((f) => relative(src, f));
    expect(importers).toEqual(["rpc.ts"]);
  });
});

import { defineConfig } from "vitest/config";

// The Tauri app embeds `dist/` (src-tauri/tauri.conf.json: frontendDist).
export default defineConfig({
  clearScreen: false,
  server: { port: 5173, strictPort: true },
  build: { outDir: "dist", target: "es2022", emptyOutDir: true },
  test: { environment: "jsdom", globals: true, include: ["test/**/*.test.ts"], benchmark: { include: ["bench/**/*.bench.ts"] } },
});

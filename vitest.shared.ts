import { defineConfig } from "vitest/config"

/**
 * Shared by every package's vitest config: workspace packages a suite imports by name resolve to
 * their built `dist/` (pnpm symlinks, so not under node_modules); Vite would transform them like
 * source on every run. They are plain ESM already, so Node loads them as it loads any dependency.
 */
export default defineConfig({
  test: { server: { deps: { external: [/\/packages\/[^/]+\/dist\//] } } }
})

import { readdirSync, readFileSync } from "node:fs"
import { fileURLToPath } from "node:url"

export * from "./logs.js"

/** The app's shipped demo data (`apps/diagnosis-harness/demo/`), from `src/demo` and `dist/demo` alike. */
export const demoDir: string = fileURLToPath(new URL("../../demo/", import.meta.url))
export const runbooksDir: string = fileURLToPath(new URL("../../demo/runbooks/", import.meta.url))
export const demoSchemaSqlPath: string = fileURLToPath(
  new URL("../../demo/mysql/schema.sql", import.meta.url)
)
export const demoAllowlistPath: string = fileURLToPath(
  new URL("../../demo/mysql/allowlist.json", import.meta.url)
)

/** The datasource name the demo allowlist declares. */
export const DEMO_DATASOURCE = "shop"

/** Runbook file names (Markdown), sorted. */
export const listRunbooks = (): string[] =>
  readdirSync(runbooksDir)
    .filter((f) => f.endsWith(".md"))
    .sort()

/** The demo business schema as individual SQL statements (comments stripped). */
export const demoSchemaStatements = (): string[] =>
  readFileSync(demoSchemaSqlPath, "utf8")
    .split("\n")
    .filter((line) => !line.trimStart().startsWith("--"))
    .join("\n")
    .split(/;\s*\n/)
    .map((s) => s.trim().replace(/;$/, ""))
    .filter((s) => s.length > 0)

/**
 * The demo allowlist JSON. The shipped file names the schema `shop`; pass the real database
 * name of MYSQL_URL to rename it (the demo tables are created in that database by `migrate`).
 */
export const demoAllowlistJson = (databaseName?: string): unknown => {
  const json = JSON.parse(readFileSync(demoAllowlistPath, "utf8")) as {
    datasources: Record<string, { defaultSchema: string; schemas: Record<string, unknown> }>
  }
  if (databaseName === undefined) return json
  for (const ds of Object.values(json.datasources)) {
    const entries = Object.values(ds.schemas)
    ds.schemas = { [databaseName]: entries[0] }
    ds.defaultSchema = databaseName
  }
  return json
}

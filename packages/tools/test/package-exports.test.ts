/**
 * The public entry points of @aiops-harness/tools: the package exports only `.` and its
 * package.json (private modules under `src/mysql/internal/` are unreachable), and the MySQL
 * surface is exactly this list (issue 18: the validator refactor keeps the public API).
 */
import { readFileSync } from "node:fs"
import { describe, expect, it } from "vitest"
import * as root from "../src/index.js"
import * as mysql from "../src/mysql/index.js"

const MYSQL_EXPORTS = [
  "DEFAULT_MAX_RESULT_BYTES",
  "DEFAULT_MAX_ROWS",
  "InvalidAllowlist",
  "MAX_EXPRESSION_AMPLIFICATION",
  "MAX_EXPRESSION_CHARS",
  "MAX_GENERATED_LENGTH",
  "MAX_LIKE_WILDCARDS",
  "MAX_LITERAL_CHARS",
  "MAX_REGEX_LENGTH",
  "MYSQL_REJECTION_REASONS",
  "MysqlAllowlistSchema",
  "MysqlExecutionError",
  "MysqlQueryRejected",
  "MysqlReadOnlyExecutor",
  "PINNED_GROUP_CONCAT_MAX_LEN",
  "PINNED_SQL_MODE",
  "SAFE_AGGREGATE_FUNCTIONS",
  "SAFE_SCALAR_FUNCTIONS",
  "checkGrants",
  "checkRegexPattern",
  "ensureMysqlQueryUser",
  "isIssuedMysqlQueryPlan",
  "isSystemSchema",
  "makeMysqlReadOnlyExecutor",
  "parseMysqlAllowlist",
  "validateMysqlQuery"
]

describe("package exports", () => {
  it("exposes only the root entry point and package.json", () => {
    const pkg = JSON.parse(readFileSync(new URL("../package.json", import.meta.url), "utf8")) as {
      exports: Record<string, unknown>
    }
    expect(Object.keys(pkg.exports)).toEqual([".", "./package.json"])
    expect(JSON.stringify(pkg.exports)).not.toContain("internal")
  })

  it("keeps the MySQL surface, re-exported from the root", () => {
    expect(Object.keys(mysql).sort()).toEqual(MYSQL_EXPORTS)
    for (const name of MYSQL_EXPORTS) expect(Object.keys(root)).toContain(name)
  })
})

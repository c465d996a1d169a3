/**
 * The validator's steps (issue 18 item 4): parse, validate (reads the tree, records rewrites),
 * render (applies them, prints). Validation never changes the parsed tree; render does only
 * what validation recorded.
 */
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { parseMysqlAllowlist } from "../src/mysql/index.js"
import { Reject, reject } from "../src/mysql/internal/ast.js"
import { parseStatement } from "../src/mysql/internal/parse.js"
import { checkAstText, checkRendered, renderValidated } from "../src/mysql/internal/render.js"
import { validateStatement } from "../src/mysql/internal/validate.js"
import { DEMO_DATASOURCE, DEMO_SCHEMA, demoAllowlistJson } from "./fixtures/mysql-corpus.js"

const allowlist = Effect.runSync(parseMysqlAllowlist(demoAllowlistJson))
const datasource = allowlist.datasources[DEMO_DATASOURCE]
if (datasource === undefined) throw new Error("demo datasource missing")

const rejectionOf = (f: () => unknown): Reject => {
  try {
    f()
  } catch (e) {
    if (e instanceof Reject) return e
    throw e
  }
  throw new Error("expected a rejection")
}

const validate = (sql: string, maxRows = 200) => validateStatement(parseStatement(sql), datasource, maxRows)

describe("reject", () => {
  it("throws a Reject with the reason and detail", () => {
    const r = rejectionOf(() => reject("PARSE_ERROR", "why"))
    expect([r.reason, r.detail]).toEqual(["PARSE_ERROR", "why"])
  })
})

describe("parse step", () => {
  it("returns the one SELECT statement", () => {
    expect(parseStatement("SELECT 1")).toMatchObject({ type: "select" })
  })

  it.each([
    ["", "EMPTY_QUERY"],
    ["DELETE FROM orders", "NOT_SELECT"],
    ["SELECT FROM WHERE", "PARSE_ERROR"],
    ["SELECT 1; SELECT 2", "MULTIPLE_STATEMENTS"],
    ["SELECT /*!50000 1 */", "VERSIONED_COMMENT"]
  ])("rejects %j as %s", (sql, reason) => {
    expect(rejectionOf(() => parseStatement(sql)).reason).toBe(reason)
  })
})

describe("validate step", () => {
  it("leaves the parsed tree unchanged and records the rewrites render needs", () => {
    const statement = parseStatement(
      'SELECT ID, COUNT(*) AS n, o.* FROM Orders o WHERE status = "paid" GROUP BY ID HAVING n > 1 ORDER BY n LIMIT 500'
    )
    const before = structuredClone(statement)
    const validated = validateStatement(statement, datasource, 200)
    expect(statement).toEqual(before)
    expect(validated.rewrites.length).toBeGreaterThan(0)
    expect(validated.rewrites.some((r) => r.kind === "inline")).toBe(true)
    expect(validated.limit).toEqual({ rowLimit: 200, enforced: true })
    expect(validated.tables).toEqual([{ schema: DEMO_SCHEMA, table: "orders" }])
    expect(validated.functions).toEqual(["COUNT"])
    expect(validated.literals).toEqual(["s:paid", "n:1"])
    expect(validated.outputs.map((o) => o.name)).toEqual([
      "id",
      "n",
      "id",
      "user_id",
      "status",
      "total",
      "currency",
      "created_at"
    ])
  })

  it("adds a LIMIT when there is none and keeps a smaller one", () => {
    expect(validate("SELECT id FROM orders").limit).toEqual({ rowLimit: 200, enforced: true })
    expect(validate("SELECT id FROM orders LIMIT 5").limit).toEqual({ rowLimit: 5, enforced: false })
  })

  it("rejects unknown node kinds as unsupported syntax", () => {
    const statement = { type: "select", columns: [{ expr: { type: "mystery" }, as: null }], from: null }
    const r = rejectionOf(() => validateStatement(statement, datasource, 200))
    expect([r.reason, r.detail]).toEqual(["UNSUPPORTED_SYNTAX", "unsupported expression"])
  })

  it("rejects a malformed node (not an object) as unsupported syntax", () => {
    const statement = { type: "select", columns: [null], from: null }
    expect(rejectionOf(() => validateStatement(statement, datasource, 200)).reason).toBe("UNSUPPORTED_SYNTAX")
  })

  it("rejects an unknown SELECT clause", () => {
    const statement = { type: "select", columns: [{ expr: { type: "number", value: 1 } }], sneaky: 1 }
    const r = rejectionOf(() => validateStatement(statement, datasource, 200))
    expect([r.reason, r.detail]).toEqual(["UNSUPPORTED_SYNTAX", "unsupported SELECT clause"])
  })
})

describe("render step", () => {
  it("prints the validated statement with every recorded rewrite applied", () => {
    const validated = validate(
      'SELECT ID, COUNT(*) AS n FROM Orders WHERE status = "paid" GROUP BY ID HAVING n > 1 ORDER BY n'
    )
    expect(renderValidated(validated)).toBe(
      "SELECT `id`, COUNT(*) AS `n` FROM `orders` WHERE `status` = 'paid' GROUP BY `id` HAVING COUNT(*) > 1 ORDER BY `n` ASC LIMIT 200"
    )
  })

  it("inlines a copy of the alias expression, not the select-list node itself", () => {
    const validated = validate("SELECT LOWER(status) AS s FROM orders GROUP BY s HAVING s = 'x'")
    const statement = validated.statement as { columns: Array<{ expr: unknown }>; having: { left: unknown } }
    renderValidated(validated)
    expect(statement.having.left).toEqual(statement.columns[0]?.expr)
    expect(statement.having.left).not.toBe(statement.columns[0]?.expr)
  })

  it("rejects a tree holding a string it cannot print verbatim", () => {
    expect(rejectionOf(() => checkAstText({ value: "a'b" })).reason).toBe("UNSAFE_LITERAL")
  })

  it("rejects rendered SQL that is not plain SQL", () => {
    expect(rejectionOf(() => checkRendered("SELECT 1 -- x")).reason).toBe("ROUND_TRIP_MISMATCH")
  })
})

import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  checkRegexPattern,
  InvalidAllowlist,
  isIssuedMysqlQueryPlan,
  MYSQL_REJECTION_REASONS,
  type MysqlAllowlist,
  type MysqlQueryPlan,
  MysqlQueryRejected,
  parseMysqlAllowlist,
  validateMysqlQuery
} from "../src/mysql/index.js"
import {
  acceptedCorpus,
  acceptedShadowingCorpus,
  bypassCorpus,
  DEMO_DATASOURCE,
  DEMO_SCHEMA,
  demoAllowlistJson,
  harmlessBypassCorpus,
  rejectedCorpus
} from "./fixtures/mysql-corpus.js"

const allowlist: MysqlAllowlist = Effect.runSync(parseMysqlAllowlist(demoAllowlistJson))

const validate = (sql: string, options?: { maxRows?: number }, datasource = DEMO_DATASOURCE) =>
  Effect.runSync(Effect.result(validateMysqlQuery({ datasource, sql }, allowlist, options)))

const plan = (sql: string, options?: { maxRows?: number }): MysqlQueryPlan => {
  const r = validate(sql, options)
  if (r._tag !== "Success") throw new Error(`expected acceptance of ${sql}: ${JSON.stringify(r.failure)}`)
  return r.success
}

const rejection = (sql: string, options?: { maxRows?: number }, datasource?: string): MysqlQueryRejected => {
  const r = validate(sql, options, datasource)
  if (r._tag !== "Failure") throw new Error(`expected rejection of ${sql}, got ${r.success.sql}`)
  return r.failure
}

describe("mysql corpus", () => {
  it("has at least 60 accepted and 80 rejected statements", () => {
    expect(acceptedCorpus.length).toBeGreaterThanOrEqual(60)
    expect(rejectedCorpus.length).toBeGreaterThanOrEqual(80)
  })

  it.each(acceptedCorpus.map((c) => [c.sql]))("accepts %s", (sql) => {
    const p = plan(sql)
    expect(p.datasource).toBe(DEMO_DATASOURCE)
    expect(p.schema).toBe(DEMO_SCHEMA)
    expect(p.rowLimit).toBeGreaterThanOrEqual(0)
    expect(p.rowLimit).toBeLessThanOrEqual(200)
    expect(p.sql).toMatch(/LIMIT/)
    expect(p.sql).not.toContain("/*")
    expect(p.sql).not.toContain("--")
    expect(p.sql.replaceAll("AS `password_hash`", "")).not.toContain("password_hash")
    expect(p.sql).not.toContain("provider_ref")
    for (const c of p.columns) {
      const table = allowlist.datasources[DEMO_DATASOURCE]?.schemas[c.schema]?.tables[c.table]
      expect(table?.columns).toContain(c.column)
    }
    // The normalized SQL is itself accepted and stable.
    const again = plan(p.sql)
    expect(again.sql).toBe(p.sql)
  })

  it.each(acceptedShadowingCorpus.map((c) => [c.sql, c.normalized]))(
    "accepts the alias-shadowing statement %s only in its safe form",
    (sql, normalized) => {
      const p = plan(sql)
      expect(p.sql).toBe(normalized)
      expect(p.columns.some((c) => c.column === "password_hash")).toBe(false)
      expect(plan(p.sql).sql).toBe(p.sql)
    }
  )

  it.each(rejectedCorpus.map((c) => [c.sql, c.reason, c.datasource] as const))(
    "rejects %s with %s",
    (sql, reason, datasource) => {
      const e = rejection(sql, undefined, datasource)
      expect(e).toBeInstanceOf(MysqlQueryRejected)
      expect(e._tag).toBe("MysqlQueryRejected")
      expect(e.reason).toBe(reason)
      expect(MYSQL_REJECTION_REASONS).toContain(e.reason)
      expect(e.detail.length).toBeGreaterThan(0)
      expect(e.detail.length).toBeLessThan(120)
    }
  )

  it("never echoes literals from the SQL in the detail", () => {
    for (const c of rejectedCorpus) {
      const e = rejection(c.sql, undefined, c.datasource)
      for (const secret of [
        "/etc/passwd",
        "/tmp/x",
        "secure_file_priv",
        "password_hash",
        "secrets",
        "SLEEP"
      ]) {
        if (c.sql.includes(secret)) expect(e.detail).not.toContain(secret)
      }
    }
  })
})

describe("validateMysqlQuery plans", () => {
  it("enforces LIMIT min(existing, maxRows)", () => {
    expect(plan("SELECT id FROM orders").sql).toBe("SELECT `id` FROM `orders` LIMIT 200")
    expect(plan("SELECT id FROM orders").rowLimit).toBe(200)
    expect(plan("SELECT id FROM orders").limitEnforced).toBe(true)
    expect(plan("SELECT id FROM orders LIMIT 5").sql).toBe("SELECT `id` FROM `orders` LIMIT 5")
    expect(plan("SELECT id FROM orders LIMIT 5").limitEnforced).toBe(false)
    expect(plan("SELECT id FROM orders LIMIT 1000").sql).toBe("SELECT `id` FROM `orders` LIMIT 200")
    expect(plan("SELECT id FROM orders LIMIT 1000", { maxRows: 3 }).rowLimit).toBe(3)
    expect(plan("SELECT id FROM orders LIMIT 10, 500").sql).toBe("SELECT `id` FROM `orders` LIMIT 10, 200")
    expect(plan("SELECT id FROM orders LIMIT 500 OFFSET 7").sql).toBe(
      "SELECT `id` FROM `orders` LIMIT 200 OFFSET 7"
    )
    expect(plan("SELECT id FROM orders LIMIT 0").rowLimit).toBe(0)
  })

  it("enforces LIMIT on set operations", () => {
    expect(plan("SELECT id FROM orders UNION SELECT order_id FROM payments", { maxRows: 7 }).sql).toBe(
      "SELECT `id` FROM `orders` UNION SELECT `order_id` FROM `payments` LIMIT 7"
    )
    expect(
      plan("(SELECT id FROM orders LIMIT 1) UNION (SELECT order_id FROM payments LIMIT 2)", { maxRows: 7 })
        .sql
    ).toBe("(SELECT `id` FROM `orders` LIMIT 1) UNION (SELECT `order_id` FROM `payments` LIMIT 2) LIMIT 7")
    expect(
      plan("(SELECT id FROM orders) UNION (SELECT order_id FROM payments) ORDER BY id LIMIT 50", {
        maxRows: 7
      }).sql
    ).toBe("(SELECT `id` FROM `orders`) UNION (SELECT `order_id` FROM `payments`) ORDER BY `id` ASC LIMIT 7")
  })

  it("expands stars over fully allowed tables and never over hidden columns", () => {
    expect(plan("SELECT * FROM orders").sql).toBe(
      "SELECT `orders`.`id`, `orders`.`user_id`, `orders`.`status`, `orders`.`total`, `orders`.`currency`, `orders`.`created_at` FROM `orders` LIMIT 200"
    )
    expect(plan("SELECT p.* FROM payments p").sql).toBe(
      "SELECT `p`.`id`, `p`.`order_id`, `p`.`amount`, `p`.`method`, `p`.`status`, `p`.`paid_at` FROM `payments` AS `p` LIMIT 200"
    )
    expect(plan("SELECT x.* FROM (SELECT id, total AS t FROM orders) x").sql).toBe(
      "SELECT `x`.`id`, `x`.`t` FROM (SELECT `id`, `total` AS `t` FROM `orders`) AS `x` LIMIT 200"
    )
  })

  it("reports the tables and columns read, canonicalized", () => {
    const p = plan(
      "SELECT O.ID, u.Email FROM Orders O JOIN users u ON u.id = O.user_id WHERE u.country = 'FR'"
    )
    expect(p.tables).toEqual([
      { schema: DEMO_SCHEMA, table: "orders" },
      { schema: DEMO_SCHEMA, table: "users" }
    ])
    expect(p.columns).toEqual(
      expect.arrayContaining([
        { schema: DEMO_SCHEMA, table: "orders", column: "id" },
        { schema: DEMO_SCHEMA, table: "orders", column: "user_id" },
        { schema: DEMO_SCHEMA, table: "users", column: "email" },
        { schema: DEMO_SCHEMA, table: "users", column: "id" },
        { schema: DEMO_SCHEMA, table: "users", column: "country" }
      ])
    )
    expect(p.columns).toHaveLength(5)
    expect(p.sql).toContain("FROM `orders` AS `O`")
  })

  it("tracks columns read through CTEs and derived tables", () => {
    const p = plan(
      "WITH t AS (SELECT user_id, total FROM orders) SELECT x.user_id FROM (SELECT user_id FROM t) x"
    )
    expect(p.columns).toEqual([
      { schema: DEMO_SCHEMA, table: "orders", column: "user_id" },
      { schema: DEMO_SCHEMA, table: "orders", column: "total" }
    ])
  })

  it("inlines select aliases in GROUP BY / HAVING so they cannot bind to hidden columns", () => {
    expect(plan("SELECT email AS password_hash FROM users GROUP BY password_hash").sql).toBe(
      "SELECT `email` AS `password_hash` FROM `users` GROUP BY `email` LIMIT 200"
    )
    expect(plan("SELECT user_id, COUNT(*) AS n FROM orders GROUP BY user_id HAVING n > 1").sql).toBe(
      "SELECT `user_id`, COUNT(*) AS `n` FROM `orders` GROUP BY `user_id` HAVING COUNT(*) > 1 LIMIT 200"
    )
  })

  it("keeps a select alias only as a whole ORDER BY item and rejects it inside expressions", () => {
    // Bare name: the server binds it to the alias, rendered with the alias's exact spelling.
    expect(plan("SELECT id, total AS T FROM orders ORDER BY t DESC").sql).toBe(
      "SELECT `id`, `total` AS `T` FROM `orders` ORDER BY `T` DESC LIMIT 200"
    )
    // Inside an expression the server binds table columns: an alias there is refused with a hint.
    const e = rejection("SELECT id, total AS t FROM orders ORDER BY t * 2")
    expect(e.reason).toBe("COLUMN_NOT_ALLOWED")
    expect(e.detail).toContain("whole ORDER BY/GROUP BY item")
    // A name that is a real allowed column stays that column, alias or not.
    expect(plan("SELECT email AS id FROM users ORDER BY id + 0").columns).toContainEqual({
      schema: DEMO_SCHEMA,
      table: "users",
      column: "id"
    })
    // The first of two equal aliases wins, as on the server.
    expect(plan("SELECT id AS a, total AS A FROM orders ORDER BY a").sql).toBe(
      "SELECT `id` AS `a`, `total` AS `A` FROM `orders` ORDER BY `a` ASC LIMIT 200"
    )
  })

  it("renders qualifiers exactly as the resolved alias or table is spelled", () => {
    expect(plan("SELECT O.id FROM Orders o").sql).toBe("SELECT `o`.`id` FROM `orders` AS `o` LIMIT 200")
    expect(plan(`SELECT ${DEMO_SCHEMA.toUpperCase()}.ORDERS.id FROM ${DEMO_SCHEMA}.orders`).sql).toBe(
      `SELECT \`${DEMO_SCHEMA}\`.\`orders\`.\`id\` FROM \`${DEMO_SCHEMA}\`.\`orders\` LIMIT 200`
    )
    expect(
      rejection("SELECT u.id FROM users u WHERE EXISTS (SELECT 1 FROM orders U WHERE u.id = 1)").reason
    ).toBe("AMBIGUOUS_COLUMN")
  })

  it("maps parser number quirks to PARSE_ERROR and accepts decimal exponents", () => {
    expect(rejection("SELECT id FROM orders WHERE id = 1e1").detail).toContain("decimal point")
    expect(plan("SELECT id FROM orders WHERE total < 1.5e3").sql).toBe(
      "SELECT `id` FROM `orders` WHERE `total` < 1.5e3 LIMIT 200"
    )
  })

  it("caps the length argument of padding functions", () => {
    expect(plan("SELECT LPAD(status, 1000, '.') AS s FROM orders").sql).toContain("LPAD(`status`, 1000, '.')")
    const e = rejection("SELECT LPAD(status, 1001, '.') FROM orders")
    expect(e.reason).toBe("RESOURCE_LIMIT")
    expect(e.detail).toContain("1000")
  })

  it("drops comments from the normalized SQL", () => {
    expect(plan("SELECT id /* hi */ FROM orders # tail").sql).toBe("SELECT `id` FROM `orders` LIMIT 200")
  })

  it("returns frozen plans that the executor recognises", () => {
    const p = plan("SELECT id FROM orders")
    expect(Object.isFrozen(p)).toBe(true)
    expect(isIssuedMysqlQueryPlan(p)).toBe(true)
    expect(isIssuedMysqlQueryPlan({ ...p })).toBe(false)
  })

  it("rejects an invalid maxRows option", () => {
    expect(rejection("SELECT id FROM orders", { maxRows: 0 }).reason).toBe("INVALID_LIMIT")
  })

  it("rejects non-string sql and oversized statements", () => {
    expect(rejection(undefined as unknown as string).reason).toBe("EMPTY_QUERY")
    expect(rejection(`SELECT id FROM orders WHERE status = '${"x".repeat(100_001)}'`).reason).toBe(
      "UNSUPPORTED_SYNTAX"
    )
    expect(rejection("SELECT 1\u0000").reason).toBe("PARSE_ERROR")
  })

  it("rejects excessive nesting", () => {
    const deep = `SELECT id FROM orders WHERE id IN ${"(SELECT id FROM orders WHERE id IN ".repeat(70)}(1)${")".repeat(70)}`
    expect(rejection(deep).reason).toBe("UNSUPPORTED_SYNTAX")
  })
})

describe("parseMysqlAllowlist", () => {
  it("accepts the demo allowlist", () => {
    expect(allowlist.datasources[DEMO_DATASOURCE]?.defaultSchema).toBe(DEMO_SCHEMA)
  })

  const invalid = (json: unknown): InvalidAllowlist => {
    const r = Effect.runSync(Effect.result(parseMysqlAllowlist(json)))
    if (r._tag !== "Failure") throw new Error("expected failure")
    return r.failure
  }

  it("rejects wrong shapes with issues", () => {
    const e = invalid({
      datasources: { a: { defaultSchema: "s", schemas: { s: { tables: { t: { columns: "id" } } } } } }
    })
    expect(e).toBeInstanceOf(InvalidAllowlist)
    expect(e.issues[0]?.path).toBe("datasources.a.schemas.s.tables.t.columns")
    expect(invalid(null)._tag).toBe("InvalidAllowlist")
    expect(invalid({ datasources: {}, extra: 1 })._tag).toBe("InvalidAllowlist")
  })

  it("requires defaultSchema to be listed", () => {
    const e = invalid({ datasources: { a: { defaultSchema: "x", schemas: { s: { tables: {} } } } } })
    expect(e.issues[0]?.path).toBe("datasources.a.defaultSchema")
  })

  it("rejects backticks in identifiers and system schemas", () => {
    expect(
      invalid({
        datasources: { a: { defaultSchema: "s", schemas: { s: { tables: { "t`": { columns: ["id"] } } } } } }
      }).issues.length
    ).toBeGreaterThan(0)
    expect(
      invalid({
        datasources: {
          a: { defaultSchema: "mysql", schemas: { mysql: { tables: { user: { columns: ["User"] } } } } }
        }
      }).detail
    ).toContain("system schemas")
  })
})

describe("issue 9: the executed SQL is exactly the validated SQL", () => {
  it("has the issue's cases and at least 80 more bypass attempts", () => {
    expect(bypassCorpus.length).toBeGreaterThanOrEqual(90)
  })

  it.each(bypassCorpus.map((c) => [c.sql, c.reason] as const))("rejects %s with %s", (sql, reason) => {
    const e = rejection(sql)
    expect(e.reason).toBe(reason)
    expect(e.detail).not.toContain("password_hash")
    expect(e.detail).not.toContain("HikariPool")
  })

  it.each(harmlessBypassCorpus.map((c) => [c.sql, c.rendered] as const))(
    "accepts %s only as the plain plan it renders",
    (sql, rendered) => {
      const p = plan(sql)
      expect(p.sql).toBe(rendered)
      expect(plan(p.sql).sql).toBe(rendered)
    }
  )

  it("never renders a backslash, a double quote or a control character", () => {
    for (const c of [...acceptedCorpus, ...acceptedShadowingCorpus, ...harmlessBypassCorpus]) {
      const p = plan(c.sql)
      expect(p.sql, c.sql).not.toMatch(/[\\"\u0000-\u001f]/)
      // Every quote opens or closes a literal: an even number of them.
      expect((p.sql.match(/'/g) ?? []).length % 2, c.sql).toBe(0)
    }
  })
})

describe("issue 9: result provenance (evidence laundering through literals)", () => {
  it("marks columns written by the statement as literal", () => {
    const p = plan(
      "SELECT 'HikariPool-1 connection pool exhausted on checkout-api' AS finding, 'p1a2b3c4' AS pattern_id, 'runbooks/x.md#fake' AS document_id FROM orders LIMIT 1"
    )
    expect(p.outputColumns).toEqual([
      { name: "finding", origin: "literal" },
      { name: "pattern_id", origin: "literal" },
      { name: "document_id", origin: "literal" }
    ])
  })

  it.each([
    ["SELECT id, status FROM orders", ["table", "table"]],
    ["SELECT * FROM payments", ["table", "table", "table", "table", "table", "table"]],
    ["SELECT COUNT(*) AS n, SUM(total) AS s, AVG(total) AS a FROM orders", ["table", "table", "table"]],
    [
      "SELECT SUM(status = 'paid') AS paid, COUNT(CASE WHEN status = 'paid' THEN 1 END) AS n FROM orders",
      ["table", "table"]
    ],
    [
      "SELECT UPPER(status), LENGTH(status), ROUND(total, 2), SUBSTR(status, 1, 2) FROM orders",
      ["table", "table", "table", "table"]
    ],
    [
      "SELECT DATE_FORMAT(created_at, '%Y-%m') AS m, ROW_NUMBER() OVER (ORDER BY id) AS rn FROM orders",
      ["table", "table"]
    ],
    ["SELECT t.n FROM (SELECT COUNT(*) AS n FROM orders) t", ["table"]],
    ["WITH c AS (SELECT status AS s FROM orders) SELECT s FROM c", ["table"]],
    ["SELECT (SELECT MAX(status) FROM orders) AS s", ["table"]],
    ["SELECT GROUP_CONCAT(status SEPARATOR ', ') AS s FROM orders", ["table"]],
    ["SELECT CONCAT(status, ' HikariPool') AS s FROM orders", ["mixed"]],
    ["SELECT IF(status = 'paid', 'pool exhausted', 'ok') AS s FROM orders", ["mixed"]],
    ["SELECT COALESCE(status, 'HikariPool') AS s FROM orders", ["mixed"]],
    ["SELECT total * 0 + 5000 AS failed FROM orders", ["mixed"]],
    ["SELECT DATE_FORMAT(created_at, 'HikariPool %Y') AS s FROM orders", ["mixed"]],
    ["SELECT GROUP_CONCAT(status SEPARATOR ' HikariPool ') AS s FROM orders", ["mixed"]],
    ["SELECT CASE WHEN total > 100 THEN 'big' ELSE 'small' END AS size FROM orders", ["mixed"]],
    ["SELECT 5000 AS failed_payments FROM orders", ["literal"]],
    ["SELECT NOW() AS t, PI() AS p FROM orders", ["literal", "literal"]],
    ["SELECT COUNT(*) AS n", ["literal"]],
    ["SELECT x.s FROM (SELECT 'lit' AS s FROM orders) x", ["literal"]],
    ["WITH c(s) AS (SELECT 'lit' FROM orders) SELECT s FROM c", ["literal"]],
    ["SELECT status FROM orders UNION SELECT 'fake'", ["literal"]],
    ["SELECT (SELECT 'x' FROM orders LIMIT 1) AS s FROM orders", ["literal"]],
    ["SELECT LENGTH('HikariPool') AS n FROM orders", ["literal"]]
  ] as const)("%s -> %j", (sql, origins) => {
    expect(plan(sql).outputColumns.map((c) => c.origin)).toEqual(origins)
  })
})

describe("issue 9: REGEXP patterns", () => {
  it.each(["^pa.*d$", "^(paid|shipped)$", "[[:alpha:]]+", "a{2,5}b?", "x|y|z", "^[^]a]*$", "(ab)c*"])(
    "accepts %s",
    (pattern) => expect(checkRegexPattern(pattern)).toBeUndefined()
  )
  it.each([
    "(a+)+",
    "(a|aa)*",
    "((a)*)*",
    "(a*)*",
    "a*b*c*",
    "a{33}",
    "a{2,}{3}",
    "(?:a)",
    "[a",
    "(a",
    "a)",
    "a**"
  ])("refuses %s", (pattern) => expect(checkRegexPattern(pattern)).toEqual(expect.any(String)))
})

import { Effect, Layer } from "effect"
import mysql from "mysql2/promise"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  ensureMysqlQueryUser,
  type MysqlAllowlist,
  MysqlExecutionError,
  type MysqlQueryPlan,
  type MysqlQueryResult,
  MysqlReadOnlyExecutor,
  type MysqlReadOnlyExecutorConfig,
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
import { describeMysql, MYSQL_URL } from "./mysql-integration.js"

/** Per run: suites of concurrent checkouts share the server, so no two runs share a user. */
const RUN = `${process.pid.toString(36)}${Math.random().toString(36).slice(2, 6)}`
const RO_USER = `aiops_tools_ro_${RUN}`
const RO_PASSWORD = "aiops_tools_ro_pw"
/** Users the startup privilege check must refuse (created and dropped by this suite). */
const SYSREAD_USER = `aiops_tools_sr_${RUN}`
const FILE_USER = `aiops_tools_fi_${RUN}`
const MADE_USER = `aiops_tools_mk_${RUN}`

const urlFor = (user: string, password: string) => {
  const u = new URL(MYSQL_URL)
  u.username = user
  u.password = password
  u.pathname = `/${DEMO_SCHEMA}`
  return u.toString()
}
const roUrl = urlFor(RO_USER, RO_PASSWORD)

const allowlist: MysqlAllowlist = Effect.runSync(parseMysqlAllowlist(demoAllowlistJson))
const ghostAllowlist: MysqlAllowlist = Effect.runSync(
  parseMysqlAllowlist({
    datasources: {
      [DEMO_DATASOURCE]: {
        defaultSchema: DEMO_SCHEMA,
        schemas: { [DEMO_SCHEMA]: { tables: { ghost_table: { columns: ["id"] } } } }
      }
    }
  })
)

const baseConfig = (statements?: Array<string>): MysqlReadOnlyExecutorConfig => ({
  url: roUrl,
  connectTimeoutMs: 3000,
  statementTimeoutMs: 5000,
  maxRows: 500,
  databases: { [DEMO_DATASOURCE]: DEMO_SCHEMA },
  connectionLimit: 2,
  ...(statements ? { onStatement: (sql: string) => statements.push(sql) } : {})
})

const planOf = (
  sql: string,
  options?: { maxRows?: number },
  list: MysqlAllowlist = allowlist
): MysqlQueryPlan => Effect.runSync(validateMysqlQuery({ datasource: DEMO_DATASOURCE, sql }, list, options))

const withExecutor = <A, E>(
  config: MysqlReadOnlyExecutorConfig,
  f: (executor: MysqlReadOnlyExecutor["Service"]) => Effect.Effect<A, E>
): Promise<A> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const executor = yield* MysqlReadOnlyExecutor
      return yield* f(executor)
    }).pipe(Effect.provide(MysqlReadOnlyExecutor.layer(config)))
  )

const runPlan = (plan: MysqlQueryPlan, config = baseConfig()): Promise<MysqlQueryResult> =>
  withExecutor(config, (x) => x.execute(plan))

/** The failure of building the executor (startup checks) or of executing `plan`. */
const runFailure = (plan: MysqlQueryPlan, config = baseConfig()): Promise<MysqlExecutionError> =>
  Effect.runPromise(
    Effect.result(
      Effect.gen(function* () {
        const executor = yield* MysqlReadOnlyExecutor
        return yield* executor.execute(plan)
      }).pipe(Effect.provide(MysqlReadOnlyExecutor.layer(config)))
    ).pipe(
      Effect.map((r) => {
        if (r._tag !== "Failure") throw new Error("expected failure")
        return r.failure
      })
    )
  )

const SEED = [
  `CREATE DATABASE IF NOT EXISTS \`${DEMO_SCHEMA}\``,
  `USE \`${DEMO_SCHEMA}\``,
  "DROP TABLE IF EXISTS order_items, payments, orders, users",
  `CREATE TABLE users (
     id BIGINT PRIMARY KEY, email VARCHAR(100) NOT NULL, name VARCHAR(100), country CHAR(2),
     is_active TINYINT(1) NOT NULL DEFAULT 1, password_hash VARCHAR(100) NOT NULL, created_at DATETIME NOT NULL)`,
  `CREATE TABLE orders (
     id INT PRIMARY KEY, user_id BIGINT NOT NULL, status VARCHAR(20) NULL, total DECIMAL(10,2) NULL,
     currency CHAR(3) NOT NULL, created_at TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP)`,
  `CREATE TABLE order_items (
     id INT PRIMARY KEY, order_id INT NOT NULL, sku VARCHAR(20) NOT NULL, quantity INT NOT NULL,
     unit_price DECIMAL(10,2) NOT NULL)`,
  `CREATE TABLE payments (
     id INT PRIMARY KEY, order_id INT NOT NULL, amount DECIMAL(12,2) NOT NULL, method VARCHAR(20),
     status VARCHAR(20), paid_at DATETIME NULL, provider_ref VARCHAR(100) NOT NULL)`,
  `INSERT INTO users VALUES
     (1, 'ann@example.com', 'Ann', 'FR', 1, 'hash-ann', '2024-01-01 10:00:00'),
     (2, 'bob@example.com', 'Bob', 'US', 0, 'hash-bob', '2024-01-02 11:00:00'),
     (3, 'cy@example.org', NULL, 'DE', 1, 'hash-cy', '2024-01-03 12:00:00'),
     (9007199254740993, 'big@example.com', 'Big', 'FR', 1, 'hash-big', '2024-01-04 13:00:00')`,
  `INSERT INTO orders VALUES
     (1, 1, 'paid', 120.50, 'EUR', '2024-02-01 09:30:00'),
     (2, 1, 'shipped', 19.99, 'EUR', '2024-02-02 09:30:00'),
     (3, 2, NULL, NULL, 'USD', '2024-02-03 09:30:00'),
     (4, 3, 'paid', 75.00, 'EUR', '2024-02-04 09:30:00'),
     (5, 9007199254740993, 'paid', 10.00, 'EUR', '2024-02-05 09:30:00')`,
  `INSERT INTO payments VALUES
     (1, 1, 120.50, 'card', 'ok', '2024-02-01 09:31:00', 'secret-ref-1'),
     (2, 4, 75.00, NULL, 'ok', NULL, 'secret-ref-2')`
]

const seedItems = () => {
  const values: Array<string> = []
  for (let i = 1; i <= 300; i++)
    values.push(`(${i}, ${(i % 5) + 1}, 'SKU-${i % 17}', ${i % 4}, ${(i % 9) + 0.25})`)
  return `INSERT INTO order_items VALUES ${values.join(", ")}`
}

describeMysql("MysqlReadOnlyExecutor (integration)", () => {
  let admin: mysql.Connection
  let previousLog: { general_log: string; log_output: string } | undefined

  beforeAll(async () => {
    admin = await mysql.createConnection({ uri: MYSQL_URL, connectTimeout: 3000 })
    for (const sql of SEED) await admin.query(sql)
    await admin.query(seedItems())
    await admin.query(`CREATE USER IF NOT EXISTS '${RO_USER}'@'%' IDENTIFIED BY '${RO_PASSWORD}'`)
    await admin.query(`CREATE USER IF NOT EXISTS '${RO_USER}'@'localhost' IDENTIFIED BY '${RO_PASSWORD}'`)
    await admin.query(`GRANT SELECT ON \`${DEMO_SCHEMA}\`.* TO '${RO_USER}'@'%'`)
    await admin.query(`GRANT SELECT ON \`${DEMO_SCHEMA}\`.* TO '${RO_USER}'@'localhost'`)
    for (const [user, grants] of [
      [SYSREAD_USER, [`SELECT ON \`${DEMO_SCHEMA}\`.*`, "SELECT ON mysql.*"]],
      [FILE_USER, [`SELECT ON \`${DEMO_SCHEMA}\`.*`, "FILE ON *.*"]]
    ] as const) {
      for (const host of ["%", "localhost"]) {
        await admin.query(`CREATE USER IF NOT EXISTS '${user}'@'${host}' IDENTIFIED BY '${user}-pw'`)
        for (const g of grants) await admin.query(`GRANT ${g} TO '${user}'@'${host}'`)
      }
    }
  })

  afterAll(async () => {
    if (previousLog) {
      await admin.query("SET GLOBAL general_log = ?", [previousLog.general_log === "ON" ? 1 : 0])
      await admin.query("SET GLOBAL log_output = ?", [previousLog.log_output])
    }
    for (const user of [RO_USER, SYSREAD_USER, FILE_USER])
      for (const host of ["%", "localhost"]) await admin?.query(`DROP USER IF EXISTS '${user}'@'${host}'`)
    await admin?.end()
  })

  describe("startup privilege check (SHOW GRANTS)", () => {
    it("accepts the SELECT-only user", async () => {
      const statements: Array<string> = []
      const result = await runPlan(planOf("SELECT id FROM orders WHERE id = 1"), baseConfig(statements))
      expect(result.rows).toEqual([{ id: 1 }])
      expect(statements[0]).toBe("SHOW GRANTS")
    })

    it.each([
      ["root (the server's administrator)", MYSQL_URL, /global|PRIVILEGES|GRANT OPTION/],
      ["a user that can read mysql.*", urlFor(SYSREAD_USER, `${SYSREAD_USER}-pw`), /system schema/],
      ["a user with FILE", urlFor(FILE_USER, `${FILE_USER}-pw`), /FILE/]
    ])("refuses %s with UNSAFE_PRIVILEGES before running anything", async (_name, url, detail) => {
      const statements: Array<string> = []
      const error = await runFailure(planOf("SELECT id FROM orders"), { ...baseConfig(statements), url })
      expect(error.code).toBe("UNSAFE_PRIVILEGES")
      expect(error.internalMessage).toMatch(detail)
      expect(error.internalMessage).not.toMatch(/PASSWORD|\*[0-9A-F]{40}/)
      expect(statements).toEqual(["SHOW GRANTS"])
    })

    it("ensureMysqlQueryUser creates a user the check accepts", async () => {
      const made = urlFor(MADE_USER, "aiops-tools-made-pw")
      try {
        const created = await Effect.runPromise(
          ensureMysqlQueryUser({ adminUrl: MYSQL_URL, queryUrl: made, databases: [DEMO_SCHEMA] })
        )
        expect(created.user).toBe(MADE_USER)
        const result = await runPlan(planOf("SELECT id FROM orders WHERE id = 3"), {
          ...baseConfig(),
          url: made
        })
        expect(result.rows).toEqual([{ id: 3 }])
      } finally {
        for (const host of ["%", "localhost"])
          await admin.query(`DROP USER IF EXISTS '${MADE_USER}'@'${host}'`)
      }
    })

    it("allowPrivilegedUser skips the check (tests only)", async () => {
      const result = await runPlan(planOf("SELECT id FROM orders WHERE id = 1"), {
        ...baseConfig(),
        url: MYSQL_URL,
        allowPrivilegedUser: true
      })
      expect(result.rowCount).toBe(1)
    })
  })

  describe("result byte cap", () => {
    it("stops reading a result over maxResultBytes with RESULT_TOO_LARGE; the pool recovers", async () => {
      const big = planOf("SELECT id, sku, unit_price FROM order_items ORDER BY id")
      const small = planOf("SELECT id FROM orders WHERE id = 2")
      const [error, after] = await withExecutor(
        { ...baseConfig(), maxResultBytes: 512, connectionLimit: 1 },
        (x) =>
          Effect.gen(function* () {
            const failed = yield* Effect.result(x.execute(big))
            const ok = yield* x.execute(small)
            return [failed, ok] as const
          })
      )
      expect(error._tag).toBe("Failure")
      if (error._tag === "Failure") expect(error.failure.code).toBe("RESULT_TOO_LARGE")
      expect(after.rows).toEqual([{ id: 2 }])
    })

    it("rejects a non-positive cap", async () => {
      expect(
        (await runFailure(planOf("SELECT id FROM orders"), { ...baseConfig(), maxResultBytes: 0 })).code
      ).toBe("INVALID_CONFIG")
    })
  })

  describe("issue 9 on the server", () => {
    it("returns each column's provenance with the result", async () => {
      const result = await runPlan(
        planOf(
          "SELECT 'HikariPool-1 connection pool exhausted on checkout-api' AS finding, 'p1a2b3c4' AS pattern_id, status, CONCAT(status, '!') AS s2 FROM orders ORDER BY id LIMIT 1"
        )
      )
      expect(result.columns.map((c) => [c.name, c.origin])).toEqual([
        ["finding", "literal"],
        ["pattern_id", "literal"],
        ["status", "table"],
        ["s2", "mixed"]
      ])
      expect(result.rows[0]).toMatchObject({
        finding: "HikariPool-1 connection pool exhausted on checkout-api",
        status: "paid"
      })
    })

    it("no cell of a `table` column ever carries a literal the statement wrote (marker sweep)", async () => {
      // Each template wraps a column (X) and a marker literal (M) the way a model might launder it.
      const templates = [
        "CONCAT(X, M)",
        "CONCAT_WS(M, X, X)",
        "IF(X IS NULL, M, X)",
        "IFNULL(X, M)",
        "COALESCE(X, M)",
        "NULLIF(M, X)",
        "GREATEST(X, M)",
        "LEAST(X, M)",
        "ELT(1, M, X)",
        "CASE WHEN X IS NOT NULL THEN M END",
        "CASE X WHEN 'nope' THEN X ELSE M END",
        "REPLACE(X, 'a', M)",
        "REPLACE(M, 'Z', X)",
        "LPAD(X, 20, M)",
        "RPAD(X, 20, M)",
        "TRIM(BOTH 'x' FROM CONCAT(M, X))",
        "SUBSTRING(CONCAT(M, X), 1, 10)",
        "LEFT(CONCAT(M, X), 8)",
        "RIGHT(CONCAT(X, M), 8)",
        "SUBSTRING_INDEX(CONCAT(M, ',', X), ',', 1)",
        "LOWER(CONCAT(X, M))",
        "UPPER(M)",
        "REVERSE(REVERSE(M))",
        "JSON_OBJECT(M, X)",
        "JSON_ARRAY(X, M)",
        "JSON_UNQUOTE(JSON_EXTRACT(JSON_ARRAY(M, X), '$[0]'))",
        "JSON_QUOTE(M)",
        "MAX(M)",
        "MIN(CONCAT(X, M))",
        "GROUP_CONCAT(X SEPARATOR M)",
        "GROUP_CONCAT(M)",
        // MariaDB has no LAG default argument: COALESCE is how the default is written there.
        "COALESCE(LAG(X, 1) OVER (ORDER BY id), M)",
        "LAG(X, 1) OVER (ORDER BY id)",
        "FIRST_VALUE(M) OVER (ORDER BY id)",
        "CAST(M AS CHAR)",
        "CONVERT(M USING utf8mb4)",
        "(SELECT M)",
        "(SELECT CONCAT(X, M) FROM orders o2 WHERE o2.id = orders.id)",
        "X + 987654",
        "987654 - X * 0",
        "ROUND(987654)",
        "ABS(-987654)",
        "COUNT(*) * 0 + 987654",
        "SUM(987654)",
        "MAX(X) OR 987654",
        "FORMAT(987654, 0)",
        "DATE_FORMAT(created_at, 'ZZMARK %Y')"
      ]
      const statements = templates.flatMap((t) =>
        ["status", "currency", "id"].map((x) => {
          const expr = t.replaceAll("X", x).replaceAll("M", "'ZZMARK'")
          const grouped = /\b(MAX|MIN|GROUP_CONCAT|SUM|COUNT)\(/.test(t) && !t.includes("OVER")
          return `SELECT ${expr} AS v${grouped ? "" : ", id"} FROM orders${grouped ? "" : " ORDER BY id"}`
        })
      )
      const derived = [
        "SELECT t.m FROM (SELECT 'ZZMARK' AS m FROM orders) t",
        "WITH c(m) AS (SELECT CONCAT(status, 'ZZMARK') FROM orders) SELECT m FROM c",
        "SELECT status FROM orders UNION ALL SELECT 'ZZMARK'",
        "SELECT x.* FROM (SELECT status, 'ZZMARK' AS m FROM orders) x"
      ]
      let accepted = 0
      let tableColumns = 0
      const failedOnServer: Array<string> = []
      await withExecutor(baseConfig(), (x) =>
        Effect.forEach([...statements, ...derived], (sql) =>
          Effect.gen(function* () {
            const plan = yield* Effect.result(
              validateMysqlQuery({ datasource: DEMO_DATASOURCE, sql }, allowlist)
            )
            if (plan._tag === "Failure") return
            const outcome = yield* Effect.result(x.execute(plan.success))
            if (outcome._tag === "Failure") {
              failedOnServer.push(`${outcome.failure.serverCode ?? outcome.failure.code}: ${sql}`)
              return
            }
            const result = outcome.success
            accepted++
            for (const column of result.columns) {
              if (column.origin !== "table") continue
              tableColumns++
              for (const row of result.rows) {
                const cell = String(row[column.name])
                expect(cell, `${sql} -> ${column.name}`).not.toContain("ZZMARK")
                expect(cell, `${sql} -> ${column.name}`).not.toContain("987654")
              }
            }
          })
        )
      )
      // Most templates run (and are marked mixed/literal); the check saw real table columns too.
      expect(failedOnServer).toEqual([])
      expect(accepted).toBeGreaterThan(100)
      expect(tableColumns).toBeGreaterThan(50)
    })

    it("runs every harmless-looking bypass exactly as rendered, as the SELECT-only user", async () => {
      const sent: Array<string> = []
      const plans = harmlessBypassCorpus.map((c) => planOf(c.sql))
      const results = await withExecutor(baseConfig(sent), (x) => Effect.forEach(plans, (p) => x.execute(p)))
      for (const c of harmlessBypassCorpus) expect(sent).toContain(c.rendered)
      const byRendered = new Map(harmlessBypassCorpus.map((c, i) => [c.rendered, results[i]!]))
      const at = (sql: string) => {
        const c = harmlessBypassCorpus.find((x) => x.sql === sql)
        if (!c) throw new Error(sql)
        return byRendered.get(c.rendered)!
      }
      // The comment-like text stayed inside its literal: no row has that status, nothing else ran.
      expect(at("SELECT id FROM orders WHERE status = 'a-b #c -- d /* e */ ; f' ORDER BY id").rows).toEqual(
        []
      )
      expect(at("SELECT id FROM orders WHERE id = 1 #x\n UNION SELECT 1").rows).toEqual([{ id: 1 }])
      // Adjacent literals: the server ran the rendered alias form, not 'ab'.
      expect(at("SELECT 'a' 'b' FROM orders LIMIT 1").rows).toEqual([{ b: "a" }])
      expect(at("SELECT id FROM orders WHERE status IN ('paid', \"shipped\") ORDER BY id").rows).toEqual([
        { id: 1 },
        { id: 2 },
        { id: 4 },
        { id: 5 }
      ])
      expect(
        at("SELECT REPLACE(status, '', LPAD('', 1000, 'x')) AS r FROM orders WHERE id = 1").rows
      ).toEqual([{ r: "paid" }])
      // group_concat_max_len is pinned per session: 300 x 1000 characters come back capped.
      const g = at("SELECT GROUP_CONCAT(LPAD('',1000,'a')) AS g FROM order_items").rows[0]?.g
      expect(typeof g === "string" && g.length).toBe(16_384)
      for (const r of results) expect(JSON.stringify(r.rows)).not.toContain("hash-")
    })
  })

  it("runs a plan and keeps numbers, nulls and dates typed", async () => {
    const result = await runPlan(
      planOf("SELECT id, user_id, status, total, currency, created_at FROM orders ORDER BY id")
    )
    expect(result.rowCount).toBe(5)
    expect(result.truncated).toBe(false)
    expect(result.columns.map((c) => c.name)).toEqual([
      "id",
      "user_id",
      "status",
      "total",
      "currency",
      "created_at"
    ])
    expect(result.columns.map((c) => c.type)).toEqual([
      "LONG",
      "LONGLONG",
      "VAR_STRING",
      "NEWDECIMAL",
      "STRING",
      "TIMESTAMP"
    ])
    expect(result.rows[0]).toEqual({
      id: 1,
      user_id: 1,
      status: "paid",
      total: 120.5,
      currency: "EUR",
      created_at: "2024-02-01T09:30:00Z"
    })
    expect(result.rows[2]).toMatchObject({ status: null, total: null })
    // BIGINT beyond 2^53 stays an exact string.
    expect(result.rows[4]?.user_id).toBe("9007199254740993")
  })

  it("returns TINYINT(1) as numbers, DATETIME as naive ISO strings, aggregates as numbers", async () => {
    const users = await runPlan(
      planOf("SELECT id, is_active, created_at, name FROM users ORDER BY id LIMIT 3")
    )
    expect(users.rows).toEqual([
      { id: 1, is_active: 1, created_at: "2024-01-01T10:00:00", name: "Ann" },
      { id: 2, is_active: 0, created_at: "2024-01-02T11:00:00", name: "Bob" },
      { id: 3, is_active: 1, created_at: "2024-01-03T12:00:00", name: null }
    ])
    const agg = await runPlan(
      planOf(
        "SELECT COUNT(*) AS n, SUM(total) AS s, AVG(quantity) AS q FROM orders JOIN order_items ON order_items.order_id = orders.id"
      )
    )
    expect(typeof agg.rows[0]?.n).toBe("number")
    expect(typeof agg.rows[0]?.s).toBe("number")
    expect(typeof agg.rows[0]?.q).toBe("number")
  })

  it("expands SELECT * to allowlisted columns only and de-duplicates column names", async () => {
    const payments = await runPlan(planOf("SELECT * FROM payments ORDER BY id"))
    expect(payments.columns.map((c) => c.name)).toEqual([
      "id",
      "order_id",
      "amount",
      "method",
      "status",
      "paid_at"
    ])
    expect(JSON.stringify(payments.rows)).not.toContain("secret-ref")
    const joined = await runPlan(
      planOf("SELECT o.id, p.id FROM orders o JOIN payments p ON p.order_id = o.id ORDER BY o.id")
    )
    expect(joined.columns.map((c) => c.name)).toEqual(["id", "id_2"])
    expect(joined.rows[0]).toEqual({ id: 1, id_2: 1 })
  })

  it("executes every accepted corpus statement on the server", async () => {
    const plans = acceptedCorpus.map((c) => planOf(c.sql))
    const results = await withExecutor(baseConfig(), (x) => Effect.forEach(plans, (p) => x.execute(p)))
    expect(results).toHaveLength(acceptedCorpus.length)
    for (const r of results) expect(r.rowCount).toBeLessThanOrEqual(200)
  })

  it("caps rows with the plan LIMIT and the executor maxRows", async () => {
    const capped = await runPlan(planOf("SELECT id FROM order_items ORDER BY id", { maxRows: 25 }))
    expect(capped.rowCount).toBe(25)
    expect(capped.truncated).toBe(true)
    const exact = await runPlan(planOf("SELECT id FROM order_items ORDER BY id LIMIT 7"))
    expect(exact.rowCount).toBe(7)
    expect(exact.truncated).toBe(false)
    const small = await runPlan(planOf("SELECT id FROM order_items ORDER BY id"), {
      ...baseConfig(),
      maxRows: 4
    })
    expect(small.rows).toEqual([{ id: 1 }, { id: 2 }, { id: 3 }, { id: 4 }])
    expect(small.truncated).toBe(true)
    const fewer = await runPlan(planOf("SELECT id FROM users WHERE id < 3 ORDER BY id"))
    expect(fewer.truncated).toBe(false)
  })

  it("times out slow but allowed queries with a stable code", async () => {
    const slow = planOf(
      "SELECT COUNT(*) AS n FROM order_items a CROSS JOIN order_items b CROSS JOIN order_items c CROSS JOIN order_items d"
    )
    const error = await runFailure(slow, { ...baseConfig(), statementTimeoutMs: 200 })
    expect(error).toBeInstanceOf(MysqlExecutionError)
    expect(error.code).toBe("TIMEOUT")
    // 1969: MariaDB max_statement_time; 3024: MySQL MAX_EXECUTION_TIME (server-side, not the client backstop).
    expect([1969, 3024]).toContain(error.serverErrno)
    expect(error.internalMessage.length).toBeGreaterThan(0)
  }, 30_000)

  it("wraps every plan in a read-only transaction and always rolls back", async () => {
    const statements: Array<string> = []
    const plan = planOf("SELECT id FROM orders LIMIT 1")
    await runPlan(plan, baseConfig(statements))
    const start = statements.indexOf("START TRANSACTION READ ONLY")
    expect(start).toBeGreaterThan(-1)
    expect(statements[start + 1]).toBe(plan.sql)
    expect(statements[start + 2]).toBe("ROLLBACK")
    expect(statements.some((s) => s.startsWith("SET SESSION max_statement_time"))).toBe(true)

    const failing: Array<string> = []
    const error = await runFailure(
      planOf("SELECT id FROM ghost_table", undefined, ghostAllowlist),
      baseConfig(failing)
    )
    expect(error.code).toBe("SERVER_ERROR")
    expect(error.serverCode).toBe("ER_NO_SUCH_TABLE")
    expect(error.internalMessage).toContain("ghost_table")
    expect(failing.at(-1)).toBe("ROLLBACK")
  })

  it("reports connection failures with a stable code", async () => {
    const bad = new URL(roUrl)
    bad.port = "1"
    const error = await runFailure(planOf("SELECT id FROM orders"), { ...baseConfig(), url: bad.toString() })
    expect(error.code).toBe("CONNECTION_FAILED")
    const denied = new URL(roUrl)
    denied.password = "wrong-password"
    expect(
      (await runFailure(planOf("SELECT id FROM orders"), { ...baseConfig(), url: denied.toString() })).code
    ).toBe("CONNECTION_FAILED")
  })

  it("opens its circuit breaker after failed connections: CIRCUIT_OPEN at once, no connection tried", async () => {
    const bad = new URL(roUrl)
    bad.port = "1"
    const { codes, before, after } = await withExecutor(
      {
        ...baseConfig(),
        url: bad.toString(),
        allowPrivilegedUser: true,
        breaker: { failureThreshold: 2, resetAfterMs: 60_000 }
      },
      (x) =>
        Effect.gen(function* () {
          const breaker = x.breaker!
          const before = yield* breaker.snapshot
          const codes = yield* Effect.forEach([1, 2, 3], () =>
            Effect.flip(x.execute(planOf("SELECT id FROM orders"))).pipe(Effect.map((e) => e.code))
          )
          return { codes, before, after: yield* breaker.snapshot }
        })
    )
    expect(codes).toEqual(["CONNECTION_FAILED", "CONNECTION_FAILED", "CIRCUIT_OPEN"])
    // The executor's breaker view (read by the app's /metrics).
    expect(before).toMatchObject({ name: "query-mysql", state: "CLOSED", opened: 0, rejected: 0 })
    expect(after).toMatchObject({ name: "query-mysql", state: "OPEN", opened: 1, rejected: 1 })
  })

  it("a server error does not open the breaker", async () => {
    const codes = await withExecutor({ ...baseConfig(), breaker: { failureThreshold: 1 } }, (x) =>
      Effect.gen(function* () {
        const failed = yield* Effect.flip(
          x.execute(planOf("SELECT id FROM ghost_table", undefined, ghostAllowlist))
        )
        const ok = yield* x.execute(planOf("SELECT id FROM orders WHERE id = 1"))
        return [failed.code, ok.rowCount]
      })
    )
    expect(codes).toEqual(["SERVER_ERROR", 1])
  })

  it("runs only validated plans and only mapped datasources", async () => {
    const plan = planOf("SELECT id FROM orders")
    const forged = { ...plan, sql: "DELETE FROM orders" }
    expect((await runFailure(forged)).code).toBe("PLAN_NOT_VALIDATED")
    expect((await runFailure(plan, { ...baseConfig(), databases: {} })).code).toBe("UNKNOWN_DATASOURCE")
    const [rows] = await admin.query<mysql.RowDataPacket[]>(
      `SELECT COUNT(*) AS n FROM \`${DEMO_SCHEMA}\`.orders`
    )
    expect(rows[0]?.n).toBe(5)
  })

  it("rejects invalid configuration", async () => {
    const error = await Effect.runPromise(
      Effect.result(
        Layer.build(MysqlReadOnlyExecutor.layer({ ...baseConfig(), statementTimeoutMs: 0 })).pipe(
          Effect.scoped
        )
      )
    )
    expect(error._tag).toBe("Failure")
    if (error._tag === "Failure") expect(error.failure.code).toBe("INVALID_CONFIG")
  })

  describe("select aliases cannot read a hidden column through ORDER BY", () => {
    const LEAKS = [
      "SELECT id, 'x' AS password_hash FROM users ORDER BY password_hash LIKE '$2b$12$W%' DESC",
      "SELECT id, 'x' AS password_hash FROM users ORDER BY SUBSTR(password_hash,8,1)"
    ]

    it("the server really orders by users.password_hash in these statements (why they are refused)", async () => {
      // Run directly as admin, bypassing the validator: the order follows the hidden column.
      const [rows] = await admin.query<mysql.RowDataPacket[]>(
        `SELECT id, 'x' AS password_hash FROM \`${DEMO_SCHEMA}\`.users WHERE id < 4 ORDER BY SUBSTR(password_hash, 6, 1) DESC, id`
      )
      // hash-ann, hash-bob, hash-cy: by the alias ('x') the order would be 1, 2, 3.
      expect(rows.map((r) => Number(r.id))).toEqual([3, 2, 1])
      const [byAlias] = await admin.query<mysql.RowDataPacket[]>(
        `SELECT id, -id AS password_hash FROM \`${DEMO_SCHEMA}\`.users WHERE id < 4 ORDER BY password_hash + 0`
      )
      expect(byAlias.map((r) => Number(r.id))).not.toEqual([3, 2, 1])
    })

    it("rejects them before any statement is sent", async () => {
      const sent: Array<string> = []
      const outcomes = await withExecutor(baseConfig(sent), (x) =>
        Effect.forEach(LEAKS, (sql) =>
          Effect.result(
            validateMysqlQuery({ datasource: DEMO_DATASOURCE, sql }, allowlist).pipe(
              Effect.flatMap((plan) => x.execute(plan))
            )
          )
        )
      )
      for (const o of outcomes) {
        expect(o._tag).toBe("Failure")
        if (o._tag === "Failure") {
          expect(o.failure._tag).toBe("MysqlQueryRejected")
          if (o.failure._tag === "MysqlQueryRejected") expect(o.failure.reason).toBe("COLUMN_NOT_ALLOWED")
        }
      }
      // Only the startup privilege check ran.
      expect(sent).toEqual(["SHOW GRANTS"])
    })

    it("runs the accepted alias forms without exposing any hash", async () => {
      const results = await withExecutor(baseConfig(), (x) =>
        Effect.forEach(acceptedShadowingCorpus, (c) => x.execute(planOf(c.sql)))
      )
      for (const r of results) expect(JSON.stringify(r.rows)).not.toContain("hash-")
      // ORDER BY the bare alias sorts by the alias (-id), not by the hidden column.
      expect(results[0]?.rows.map((r) => r.id)).toEqual(["9007199254740993", 3, 2, 1])
    })
  })

  describe("rejected statements never reach the server", () => {
    it("is verified with a counting hook and MariaDB's general query log", async () => {
      const [vars] = await admin.query<mysql.RowDataPacket[]>(
        "SELECT @@GLOBAL.general_log AS general_log, @@GLOBAL.log_output AS log_output"
      )
      previousLog = {
        general_log: Number(vars[0]?.general_log) === 1 ? "ON" : "OFF",
        log_output: String(vars[0]?.log_output)
      }
      await admin.query("SET GLOBAL log_output = 'TABLE'")
      await admin.query("SET GLOBAL general_log = 1")
      const [[{ since }]] = (await admin.query("SELECT NOW(6) AS since")) as unknown as [[{ since: string }]]

      const sent: Array<string> = []
      const outcomes = await withExecutor(baseConfig(sent), (x) =>
        Effect.forEach([...rejectedCorpus, ...bypassCorpus], (c) =>
          Effect.result(
            validateMysqlQuery({ datasource: c.datasource ?? DEMO_DATASOURCE, sql: c.sql }, allowlist).pipe(
              Effect.flatMap((plan) => x.execute(plan))
            )
          )
        ).pipe(
          // One accepted plan through the same pool proves the log is capturing this user.
          Effect.tap(() => x.execute(planOf("SELECT id FROM orders WHERE id = 4"))),
          // The accepted look-alikes: the server logs exactly the rendered plan, byte for byte.
          Effect.tap(() => Effect.forEach(harmlessBypassCorpus, (c) => x.execute(planOf(c.sql))))
        )
      )
      for (const o of outcomes) {
        expect(o._tag).toBe("Failure")
        if (o._tag === "Failure") expect(o.failure._tag).toBe("MysqlQueryRejected")
      }
      // Only the accepted plans (plus session setup) were sent.
      expect(sent.filter((s) => s.startsWith("SELECT") && s !== "SELECT VERSION() AS v")).toEqual([
        "SELECT `id` FROM `orders` WHERE `id` = 4 LIMIT 200",
        ...harmlessBypassCorpus.map((c) => c.rendered)
      ])

      const [logRows] = await admin.query<mysql.RowDataPacket[]>(
        "SELECT CONVERT(argument USING utf8mb4) AS argument FROM mysql.general_log WHERE event_time >= ? AND user_host LIKE ? AND command_type = 'Query'",
        [since, `${RO_USER}%`]
      )
      const logged = logRows.map((r) => String(r.argument))
      expect(logged).toContain("SELECT `id` FROM `orders` WHERE `id` = 4 LIMIT 200")
      for (const c of harmlessBypassCorpus) expect(logged, c.sql).toContain(c.rendered)
      for (const c of [...rejectedCorpus, ...bypassCorpus]) {
        // SHOW GRANTS is also the executor's own startup privilege check.
        if (c.sql.trim() === "" || c.sql === "SHOW GRANTS") continue
        expect(logged).not.toContain(c.sql)
      }
      for (const statement of logged) {
        const known =
          statement === "SELECT `id` FROM `orders` WHERE `id` = 4 LIMIT 200" ||
          harmlessBypassCorpus.some((c) => c.rendered === statement) ||
          statement === "START TRANSACTION READ ONLY" ||
          statement === "ROLLBACK" ||
          statement === "SELECT VERSION() AS v" ||
          statement === "SHOW GRANTS" ||
          statement.startsWith("SET SESSION ") ||
          statement.startsWith("USE ")
        expect(known, statement).toBe(true)
      }
    })
  })
})

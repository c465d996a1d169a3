import {
  AuditSink,
  toToolErrorCode,
  CanonicalInvocationStore,
  InMemoryCanonicalStore,
  makeRun,
  makeToolBoundary,
  type RunId,
  type SessionId,
  type ToolCallId,
  type ToolCallOutcome
} from "@aiops-harness/core"
import { mysqlGate, mysqlUrl } from "@aiops-harness/core/testing"
import { Effect, Layer, Option } from "effect"
import mysql from "mysql2/promise"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import {
  type MysqlAllowlist,
  MysqlExecutionError,
  MysqlReadOnlyExecutor,
  parseMysqlAllowlist,
  queryMysqlTool,
  queryMysqlToolFromContext
} from "../src/index.js"

/** Per run: concurrent checkouts share the server, so no two runs share a database. */
const DATABASE = `aiops_tools_adapter_${process.pid.toString(36)}${Math.random().toString(36).slice(2, 6)}`
const enabled = await mysqlGate()

const SEED = [
  `CREATE DATABASE IF NOT EXISTS \`${DATABASE}\``,
  `USE \`${DATABASE}\``,
  "DROP TABLE IF EXISTS order_items, payments, orders, users",
  `CREATE TABLE users (id INT PRIMARY KEY, email VARCHAR(100) NOT NULL, api_token VARCHAR(64) NOT NULL,
     password_hash VARCHAR(100) NOT NULL)`,
  `CREATE TABLE orders (id INT PRIMARY KEY, user_id INT NOT NULL, status VARCHAR(20) NOT NULL,
     total DECIMAL(10,2) NOT NULL, created_at DATETIME NOT NULL)`,
  `CREATE TABLE order_items (id INT PRIMARY KEY, order_id INT NOT NULL, sku VARCHAR(20) NOT NULL, quantity INT NOT NULL)`,
  `CREATE TABLE payments (id INT PRIMARY KEY, order_id INT NOT NULL, amount DECIMAL(10,2) NOT NULL,
     status VARCHAR(20) NOT NULL, failed TINYINT(1) NOT NULL)`,
  `INSERT INTO users VALUES (1, 'ann@example.com', 'tok_live_ann_123', '$2b$12$annhash'),
     (2, 'bob@example.com', 'tok_live_bob_456', '$2b$12$bobhash')`,
  `INSERT INTO orders VALUES (1, 1, 'paid', 120.50, '2025-03-14 09:10:00'), (2, 1, 'failed', 19.99, '2025-03-14 09:20:00'),
     (3, 2, 'failed', 75.00, '2025-03-14 09:30:00')`,
  "INSERT INTO order_items VALUES (1, 1, 'SKU-1', 2), (2, 2, 'SKU-2', 1), (3, 3, 'SKU-1', 3)",
  "INSERT INTO payments VALUES (1, 1, 120.50, 'ok', 0), (2, 2, 19.99, 'gateway_timeout', 1), (3, 3, 75.00, 'gateway_timeout', 1)"
]

const allowlist: MysqlAllowlist = Effect.runSync(
  parseMysqlAllowlist({
    datasources: {
      shop: {
        defaultSchema: DATABASE,
        schemas: {
          [DATABASE]: {
            tables: {
              users: { columns: ["id", "email", "api_token"], excludedColumns: ["password_hash"] },
              orders: { columns: ["id", "user_id", "status", "total", "created_at"] },
              order_items: { columns: ["id", "order_id", "sku", "quantity"] },
              payments: { columns: ["id", "order_id", "amount", "status", "failed"] },
              // allowlisted but missing on the server: execution fails
              refunds: { columns: ["id"] }
            }
          }
        }
      }
    }
  })
)

/** Runs `calls` through a fresh boundary with query_mysql over the real server. */
const throughBoundary = (
  calls: ReadonlyArray<{ id: string; args: unknown }>,
  statements: string[]
): Promise<{ outcomes: ToolCallOutcome[]; requests: unknown[] }> =>
  Effect.runPromise(
    Effect.gen(function* () {
      const tool = yield* queryMysqlToolFromContext({ allowlist, maxRows: 50, defaultDatasource: "shop" })
      const run = yield* makeRun({
        sessionId: "s-mysql" as SessionId,
        query: "failed payments?",
        authorizedTools: [tool.name]
      })
      const boundary = yield* makeToolBoundary({ run, tools: [tool] })
      const store = yield* CanonicalInvocationStore
      const outcomes: ToolCallOutcome[] = []
      const requests: unknown[] = []
      for (const c of calls) {
        outcomes.push(
          yield* boundary.call({
            runId: run.runId,
            toolCallId: c.id,
            toolName: "query_mysql",
            arguments: c.args
          })
        )
        const record = yield* store.get(run.runId, c.id as ToolCallId)
        requests.push(Option.isSome(record) ? record.value.request : null)
      }
      return { outcomes, requests }
    }).pipe(
      Effect.provide(
        Layer.mergeAll(
          AuditSink.noop,
          InMemoryCanonicalStore.layer(),
          MysqlReadOnlyExecutor.layer({
            url: mysqlUrl(),
            connectTimeoutMs: 3000,
            statementTimeoutMs: 5000,
            maxRows: 50,
            databases: { shop: DATABASE },
            connectionLimit: 1,
            // This suite runs as the server's administrator; the privilege check is covered in
            // mysql-executor.test.ts (SELECT-only user accepted, root refused).
            allowPrivilegedUser: true,
            onStatement: (sql) => statements.push(sql)
          })
        )
      )
    )
  )

describe.runIf(enabled)("query_mysql through the ToolBoundary against a real server", () => {
  beforeAll(async () => {
    const conn = await mysql.createConnection({ uri: mysqlUrl(), multipleStatements: false })
    try {
      for (const sql of SEED) await conn.query(sql)
    } finally {
      await conn.end()
    }
  })
  afterAll(async () => {
    const conn = await mysql.createConnection({ uri: mysqlUrl() })
    try {
      await conn.query(`DROP DATABASE IF EXISTS \`${DATABASE}\``)
    } finally {
      await conn.end()
    }
  })

  it("runs an allowlisted SELECT and projects typed, masked rows", async () => {
    const statements: string[] = []
    const { outcomes } = await throughBoundary(
      [
        {
          id: "q1",
          args: {
            datasource: "shop",
            sql: "SELECT o.id, o.status, o.total, p.failed FROM orders o JOIN payments p ON p.order_id = o.id WHERE p.status = 'gateway_timeout' ORDER BY o.id"
          }
        },
        { id: "q2", args: { datasource: "", sql: "SELECT id, email, api_token FROM users ORDER BY id" } }
      ],
      statements
    )
    const [joined, users] = outcomes
    expect(joined?.error).toBeNull()
    expect(joined?.observation).toMatchObject({
      status: "READY",
      evidence_status: "EVIDENCE_FOUND",
      datasource: "shop",
      rows: [
        { id: 2, status: "failed", total: 19.99, failed: 1 },
        { id: 3, status: "failed", total: 75, failed: 1 }
      ]
    })
    expect(joined?.control.returnedCount).toBe(2)
    expect(statements).toContain("START TRANSACTION READ ONLY")
    // default datasource resolved at preflight; sensitive columns masked by the projector
    expect(users?.observation).toMatchObject({ evidence_status: "EVIDENCE_FOUND", datasource: "shop" })
    const text = JSON.stringify(users?.observation)
    expect(text).not.toContain("tok_live_ann_123")
    expect(text).not.toContain("$2b$12$")
    expect(users?.observation.rows).toEqual([
      expect.objectContaining({ id: 1, api_token: "<MASKED>" }),
      expect.objectContaining({ id: 2, api_token: "<MASKED>" })
    ])
  })

  it("a rejected statement is INVALID_REQUEST with the validator's reason and never reaches the server", async () => {
    const statements: string[] = []
    const { outcomes } = await throughBoundary(
      [
        { id: "r1", args: { datasource: "shop", sql: "SELECT password_hash FROM users" } },
        { id: "r2", args: { datasource: "shop", sql: "UPDATE orders SET status = 'paid'" } },
        { id: "r3", args: { datasource: "shop", sql: "SELECT id FROM orders; DROP TABLE orders" } },
        { id: "r4", args: { datasource: "billing", sql: "SELECT id FROM orders" } },
        { id: "r5", args: { datasource: "shop", sql: "SELECT * FROM users" } }
      ],
      statements
    )
    expect(outcomes.map((o) => o.observation.error_code)).toEqual(Array(5).fill("INVALID_REQUEST"))
    expect(outcomes.map((o) => (o.error?._tag === "InvalidRequest" ? o.error.reason : null))).toEqual([
      "COLUMN_NOT_ALLOWED",
      "NOT_SELECT",
      "MULTIPLE_STATEMENTS",
      "UNKNOWN_DATASOURCE",
      "STAR_NOT_ALLOWED"
    ])
    for (const o of outcomes) expect(o.control).toMatchObject({ status: "ERROR", recordCreated: true })
    expect(statements).toEqual([])
    const conn = await mysql.createConnection({ uri: mysqlUrl(), database: DATABASE })
    try {
      const [rows] = await conn.query("SELECT COUNT(*) AS n FROM orders WHERE status = 'paid'")
      expect((rows as Array<{ n: number }>)[0]?.n).toBe(1)
    } finally {
      await conn.end()
    }
  })

  it("an empty result is READY + NO_EVIDENCE", async () => {
    const { outcomes } = await throughBoundary(
      [
        {
          id: "e1",
          args: { datasource: "shop", sql: "SELECT id, status FROM orders WHERE status = 'refunded'" }
        }
      ],
      []
    )
    expect(outcomes[0]?.error).toBeNull()
    expect(outcomes[0]?.observation).toMatchObject({
      status: "READY",
      evidence_status: "NO_EVIDENCE",
      rows: []
    })
    expect(outcomes[0]?.control).toMatchObject({
      status: "READY",
      evidenceStatus: "NO_EVIDENCE",
      returnedCount: 0
    })
  })

  it("an executor failure is BACKEND_ERROR without server text", async () => {
    const { outcomes, requests } = await throughBoundary(
      [{ id: "b1", args: { datasource: "", sql: "SELECT id FROM refunds" } }],
      []
    )
    expect(outcomes[0]?.observation).toEqual({
      tool_call_id: "b1",
      tool: "query_mysql",
      status: "ERROR",
      evidence_status: "ERROR",
      error_code: "BACKEND_ERROR"
    })
    expect(outcomes[0]?.error).toMatchObject({
      _tag: "BackendError",
      cause: { _tag: "MysqlExecutionError", code: "SERVER_ERROR" }
    })
    expect(requests[0]).toEqual({ datasource: "shop", sql: "SELECT id FROM refunds" })
  })
})

describe("query_mysql behind the executor's breaker", () => {
  it("CIRCUIT_OPEN is a BackendError (not a timeout): the model sees BACKEND_ERROR", async () => {
    const tool = queryMysqlTool({
      allowlist,
      maxRows: 50,
      executor: {
        execute: () =>
          Effect.fail(
            new MysqlExecutionError({
              code: "CIRCUIT_OPEN",
              internalMessage: "circuit breaker query-mysql is open"
            })
          )
      }
    })
    const error = await Effect.runPromise(
      Effect.flip(
        tool.execute(
          { datasource: "shop", sql: "SELECT id FROM orders" },
          {
            runId: "r-open" as RunId,
            sessionId: "s-open" as SessionId,
            toolCallId: "c-open" as ToolCallId,
            stepId: null,
            now: 0
          }
        )
      )
    )
    expect(error).toMatchObject({ _tag: "BackendError", timeout: false, cause: { code: "CIRCUIT_OPEN" } })
    expect(toToolErrorCode(error)).toBe("BACKEND_ERROR")
  })
})

import type { JsonObject } from "@aiops-harness/core"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  checkNegativeClaim,
  evidenceTexts,
  isBareRowIndex,
  negativeScopeOf,
  parseRowRef,
  queryTermsOf,
  refPresent,
  statedLookbacks
} from "../src/index.js"

const START = "2024-05-01T10:00:00.000Z"
const END = "2024-05-01T11:00:00.000Z"

const logsRecord = (scope: JsonObject, lookback = 60) => ({
  request: { topic: scope.topic ?? "application", query: scope.query ?? "", lookback_minutes: lookback },
  agentResult: {
    tool_call_id: "c1",
    tool: "query_logs",
    status: "READY",
    evidence_status: "NO_EVIDENCE",
    truncated: false,
    source_kind: "elasticsearch",
    scope: { start_time: START, end_time: END, service: null, ...scope },
    patterns: [],
    timeline: []
  } as JsonObject
})

const agentWording = (topic: string, query: string, service: string | null, start = START, end = END) =>
  `No ${topic} logs matched query "${query}"${service ? ` for ${service}` : ""} between ${start} and ${end}.`

describe("checkNegativeClaim (scoped negative observations)", () => {
  const deadlock = logsRecord({ topic: "application", query: "deadlock" })
  const checkout = logsRecord({
    topic: "database_slow_query",
    query: "level:ERROR AND lock*",
    service: "checkout"
  })

  it("accepts the topic, query terms, service and window, by times or by lookback", () => {
    expect(checkNegativeClaim(agentWording("application", "deadlock", null), deadlock)).toEqual({
      scoped: true,
      missing: []
    })
    for (const text of [
      "No application logs matched deadlock in the last 60 minutes.",
      "Application logs of the past hour contain no deadlock entries.",
      "Searching application logs for 'deadlock' within 1h returned nothing.",
      "No matches for deadlock in the application topic (60-minute window)."
    ]) {
      expect(checkNegativeClaim(text, deadlock), text).toEqual({ scoped: true, missing: [] })
    }
    expect(
      checkNegativeClaim(
        "No database slow query logs for checkout matched ERROR lock waits in the last 60 minutes.",
        checkout
      ).scoped
    ).toBe(true)
  })

  it("names what is missing", () => {
    expect(checkNegativeClaim("No deadlock logs.", deadlock).missing).toEqual([
      'topic "application"',
      "window"
    ])
    expect(checkNegativeClaim("No application logs in the last 5 minutes.", deadlock).missing).toEqual([
      'query term "deadlock"',
      "window"
    ])
    expect(
      checkNegativeClaim("No database slow query logs matched ERROR lock in the last hour.", checkout).missing
    ).toEqual(['service "checkout"'])
  })

  it("refuses absolute wording even when the scope is named", () => {
    for (const tail of [
      "so the database is healthy",
      "so checkout is fine",
      "nothing is wrong",
      "so no deadlock fault exists",
      "deadlocks did not occur",
      "deadlocks are ruled out",
      "a deadlock is not the cause"
    ]) {
      const text = `No application logs matched "deadlock" in the last 60 minutes; ${tail}.`
      expect(checkNegativeClaim(text, deadlock).missing, text).toEqual(["absolute wording"])
    }
    // quoted query text is not wording
    const quoted = logsRecord({ topic: "application", query: "healthy" })
    expect(
      checkNegativeClaim('No application logs matched "healthy" in the last 60 minutes.', quoted).scoped
    ).toBe(true)
  })

  it("refuses unscoped claims about the system", () => {
    expect(checkNegativeClaim("The database is healthy.", deadlock).scoped).toBe(false)
    expect(checkNegativeClaim("There is no problem.", deadlock).scoped).toBe(false)
    // a record with no derivable scope is never citable for a negative claim
    expect(checkNegativeClaim("No results.", { request: {}, agentResult: { tool: "x" } })).toEqual({
      scoped: false,
      missing: ["no scope"]
    })
  })

  it("scopes SQL by datasource or table and knowledge by query terms", () => {
    const sql = {
      request: { datasource: "shop", sql: "SELECT id FROM orders o JOIN `payments` p ON p.order_id = o.id" },
      agentResult: { tool: "query_mysql", datasource: "shop", columns: [], rows: [] } as JsonObject
    }
    expect(negativeScopeOf(sql).sqlTargets).toEqual(["shop", "orders", "payments"])
    expect(checkNegativeClaim("The read-only query on payments returned no rows.", sql).scoped).toBe(true)
    expect(checkNegativeClaim("No stuck rows were returned.", sql).missing).toEqual(["datasource or table"])
    const kb = {
      request: { query: "redis eviction storm" },
      agentResult: { query: "redis eviction storm", evidence: [] }
    }
    expect(checkNegativeClaim("No runbook matched redis eviction storm.", kb).scoped).toBe(true)
    expect(checkNegativeClaim("No runbook matched redis.", kb).missing).toEqual([
      'query term "eviction"',
      'query term "storm"'
    ])
  })

  it("extracts query terms and lookbacks", () => {
    expect(queryTermsOf('service:checkout AND (level:ERROR OR "pool timeout") NOT dead*')).toEqual([
      "checkout",
      "error",
      "pool",
      "timeout",
      "dead*"
    ])
    expect(statedLookbacks("in the last 2 hours, past hour, within 15m, a 30-minute window")).toEqual([
      120, 60, 15, 30
    ])
  })

  it("property: the agent's wording passes; dropping the window or adding an absolute verdict fails", () => {
    const word = fc
      .stringMatching(/^[a-z][a-z0-9]{2,11}$/)
      .filter((w) => !["and", "or", "not", "to"].includes(w))
    fc.assert(
      fc.property(
        fc.constantFrom("application", "database_slow_query", "system_events", "system_metrics"),
        fc.array(word, { minLength: 1, maxLength: 4 }),
        fc.option(word, { nil: null }),
        (topic, words, service) => {
          const query = words.join(" ")
          const record = logsRecord({ topic, query, service })
          expect(checkNegativeClaim(agentWording(topic, query, service), record).scoped).toBe(true)
          const noWindow = `No ${topic} logs matched query "${query}"${service ? ` for ${service}` : ""}.`
          expect(checkNegativeClaim(noWindow, record).missing).toContain("window")
          const absolute = `${agentWording(topic, query, service)} The service is healthy.`
          expect(checkNegativeClaim(absolute, record).missing).toContain("absolute wording")
        }
      )
    )
  })
})

describe("excerpt citations match evidence text fields only", () => {
  const logs: JsonObject = {
    tool_call_id: "call-l",
    tool: "query_logs",
    status: "READY",
    evidence_status: "EVIDENCE_FOUND",
    truncated: false,
    source_kind: "elasticsearch-application-logs",
    scope: {
      topic: "application",
      query: "timeout",
      service: "checkout-service",
      start_time: START,
      end_time: END
    },
    patterns: [
      {
        pattern_id: "p-0011aabb",
        level: "ERROR",
        service: "checkout-service",
        template: "HikariPool-1 connection timeout after <*> ms",
        example: "HikariPool-1 connection timeout after 30000 ms",
        count: 4,
        first_seen: "2024-05-01T10:05:00.000Z",
        last_seen: "2024-05-01T10:55:00.000Z"
      }
    ],
    timeline: [
      {
        timestamp: "2024-05-01T10:06:00.000Z",
        level: "ERROR",
        service: "payments-api",
        message: "upstream reset"
      }
    ]
  }
  const knowledge: JsonObject = {
    tool: "lookup_knowledge",
    query: "checkout slow",
    evidence: [
      {
        document_id: "runbooks/db-pool.md#symptoms",
        source: "runbooks/db-pool.md",
        title: "Database pool exhaustion",
        breadcrumb: "Runbooks > Database > Symptoms",
        excerpt: "Threads wait for a free connection.",
        relevance_level: "REFERENCE"
      }
    ]
  }
  const rows: JsonObject = {
    tool: "query_mysql",
    datasource: "shop-primary",
    columns: [{ name: "payment_status", type: "VARCHAR" }],
    rows: [{ payment_status: "FAILED_TIMEOUT", amount_cents: 123456789, note: null }]
  }

  it("accepts evidence text and refuses ids, services, source kinds, timestamps, column names", () => {
    expect(refPresent(logs, "excerpt", "connection timeout after 30000")).toBe(true)
    expect(refPresent(logs, "excerpt", "upstream reset")).toBe(true)
    expect(refPresent(knowledge, "excerpt", "database pool exhaustion")).toBe(true)
    expect(refPresent(knowledge, "excerpt", "Database > Symptoms")).toBe(true)
    expect(refPresent(knowledge, "excerpt", "wait for a free connection")).toBe(true)
    expect(refPresent(rows, "excerpt", "FAILED_TIMEOUT")).toBe(true)
    expect(refPresent(rows, "excerpt", "123456789")).toBe(true)
    for (const [result, text] of [
      [logs, "elasticsearch-application"],
      [logs, "checkout-service"],
      [logs, "payments-api"],
      [logs, "2024-05-01T10:05"],
      [logs, "p-0011aabb"],
      [knowledge, "runbooks/db-pool.md"],
      [knowledge, "REFERENCE"],
      [knowledge, "checkout slow"],
      [rows, "payment_status"],
      [rows, "shop-primary"],
      [rows, "VARCHAR"]
    ] as const) {
      expect(refPresent(result, "excerpt", text), text).toBe(false)
    }
    expect(evidenceTexts(rows)).toEqual(["FAILED_TIMEOUT", "123456789", "null"])
  })

  it("a generic JSON projection (external MCP tool): every string of `result` is evidence text", () => {
    const external: JsonObject = {
      tool_call_id: "c9",
      server: "ticketing",
      result: { items: [{ id: "T-1", title: "pool exhausted on checkout" }], total: 1 }
    }
    expect(evidenceTexts(external)).toEqual(["T-1", "pool exhausted on checkout"])
    expect(refPresent(external, "excerpt", "pool exhausted")).toBe(true)
    expect(refPresent(external, "excerpt", "ticketing")).toBe(false)
  })

  it("property: text only in non-evidence fields is never an excerpt; in a template it is", () => {
    fc.assert(
      fc.property(fc.stringMatching(/^[a-z0-9]{8,20}$/), (secret) => {
        const result: JsonObject = {
          tool: "query_logs",
          source_kind: secret,
          scope: { topic: secret, query: secret, service: secret, start_time: secret, end_time: secret },
          patterns: [
            {
              pattern_id: secret,
              level: secret,
              service: secret,
              template: "connection refused",
              example: "connection refused",
              first_seen: secret,
              last_seen: secret
            }
          ],
          timeline: [{ timestamp: secret, level: secret, service: secret, message: "upstream reset" }],
          columns: [{ name: secret, type: secret }],
          evidence: [{ document_id: secret, source: secret, relevance_level: secret, excerpt: "x" }]
        }
        expect(refPresent(result, "excerpt", secret)).toBe(false)
        const patterns = [{ template: `boom ${secret} boom`, example: "" }]
        expect(refPresent({ ...result, patterns }, "excerpt", secret)).toBe(true)
      })
    )
  })
})

describe("row citations name a cell", () => {
  const result: JsonObject = {
    rows: [
      { status: "FAILED", n: 12, paid: false, note: null },
      { status: "PAID", n: 3, paid: true, note: "ok" }
    ]
  }

  it("accepts column=value and rows[i].column=value, refuses bare indexes and wrong cells", () => {
    expect(refPresent(result, "row", "status=FAILED")).toBe(true)
    expect(refPresent(result, "row", " n = 3 ")).toBe(true)
    expect(refPresent(result, "row", "rows[0].paid=false")).toBe(true)
    expect(refPresent(result, "row", "rows[0].note=null")).toBe(true)
    expect(refPresent(result, "row", "rows[1].status=PAID")).toBe(true)
    expect(refPresent(result, "row", "rows[0].status=PAID")).toBe(false)
    expect(refPresent(result, "row", "rows[9].status=PAID")).toBe(false)
    expect(refPresent(result, "row", "missing=PAID")).toBe(false)
    expect(refPresent(result, "row", "status=paid")).toBe(false)
    for (const bare of ["0", "1", "rows[0]", "rows[1].", ""])
      expect(refPresent(result, "row", bare), bare).toBe(false)
    expect(["0", "rows[3]", " 12 ", "rows[2]."].every(isBareRowIndex)).toBe(true)
    expect(isBareRowIndex("n=0")).toBe(false)
    expect(parseRowRef("rows[2].a.b=c=d")).toEqual({ index: 2, column: "a.b", value: "c=d" })
    expect(parseRowRef("=x")).toBeNull()
  })

  it("property: every cell is citable as rows[i].column=value, no bare index ever is", () => {
    const cell = fc.oneof(
      fc.string({ maxLength: 12 }).map((s) => s.trim()),
      fc.integer(),
      fc.boolean(),
      fc.constant(null)
    )
    const column = fc.stringMatching(/^[a-z_][a-z0-9_]{0,10}$/).filter((c) => c !== "__proto__")
    fc.assert(
      fc.property(
        fc.array(fc.dictionary(column, cell, { minKeys: 1, maxKeys: 4 }), { minLength: 1, maxLength: 5 }),
        (rows) => {
          const projection: JsonObject = { rows }
          rows.forEach((row, i) => {
            for (const [k, v] of Object.entries(row)) {
              const value = v === null ? "null" : String(v)
              expect(refPresent(projection, "row", `rows[${i}].${k}=${value}`)).toBe(true)
              expect(refPresent(projection, "row", `${k}=${value}`)).toBe(true)
            }
            expect(refPresent(projection, "row", String(i))).toBe(false)
            expect(refPresent(projection, "row", `rows[${i}]`)).toBe(false)
          })
        }
      )
    )
  })
})

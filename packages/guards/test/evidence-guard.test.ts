import {
  CanonicalInvocationStore,
  type CanonicalInvocationStoreShape,
  InMemoryCanonicalStore,
  type JsonObject,
  newProjectingInvocation,
  type ProjectingInvocation,
  type RunId,
  type SessionId,
  StoreError,
  type ToolCallId,
  toError,
  toReady
} from "@aiops-harness/core"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { type DraftReport, evidenceGuard, parseDraftReport } from "../src/index.js"

const RUN = "run-a" as RunId
const OTHER_RUN = "run-b" as RunId

const projecting = (
  runId: RunId,
  toolCallId: string,
  toolName = "lookup_knowledge",
  request: JsonObject = { query: "checkout 500" }
): ProjectingInvocation =>
  newProjectingInvocation({
    runId,
    sessionId: "s-1" as SessionId,
    toolCallId: toolCallId as ToolCallId,
    toolName,
    stepId: null,
    request,
    requestBytes: 24,
    createdAt: 1000
  })

const knowledge: JsonObject = {
  tool_call_id: "call-k",
  tool: "lookup_knowledge",
  status: "READY",
  evidence_status: "EVIDENCE_FOUND",
  truncated: false,
  query: "checkout connection pool exhausted",
  evidence: [
    {
      document_id: "runbooks/db-pool.md",
      source: "runbooks/db-pool.md",
      title: "DB pool",
      breadcrumb: "Runbooks > DB",
      excerpt: "When the checkout service logs HikariPool timeouts, the connection pool is exhausted.",
      relevance_level: "HIGH"
    }
  ]
}
const logs: JsonObject = {
  tool_call_id: "call-l",
  tool: "query_logs",
  status: "READY",
  evidence_status: "EVIDENCE_FOUND",
  truncated: false,
  scope: { topic: "application", query: "timeout", service: "checkout", start_time: "a", end_time: "b" },
  source_kind: "elastic-application",
  patterns: [
    { pattern_id: "p-1a2b", level: "ERROR", service: "checkout", template: "pool timeout <*>", count: 4 }
  ]
}
const rows: JsonObject = {
  tool_call_id: "call-m",
  tool: "query_mysql",
  status: "READY",
  evidence_status: "EVIDENCE_FOUND",
  truncated: false,
  datasource: "demo",
  columns: [
    { name: "status", type: "VARCHAR", origin: "table" },
    { name: "n", type: "BIGINT", origin: "table" }
  ],
  rows: [
    { status: "FAILED", n: 12 },
    { status: "PAID", n: 3 }
  ]
}
const empty: JsonObject = {
  tool_call_id: "call-e",
  tool: "query_logs",
  status: "READY",
  evidence_status: "NO_EVIDENCE",
  truncated: false,
  scope: {
    topic: "application",
    query: "deadlock",
    service: null,
    start_time: "2024-01-01T00:00:00.000Z",
    end_time: "2024-01-01T01:00:00.000Z"
  },
  patterns: [],
  timeline: []
}
/** A scoped negative claim about `empty`. */
const SCOPED =
  'No application logs matched query "deadlock" between 2024-01-01T00:00:00.000Z and 2024-01-01T01:00:00.000Z.'

const seed = Effect.gen(function* () {
  const store = yield* CanonicalInvocationStore
  const ready = (
    runId: RunId,
    id: string,
    agentResult: JsonObject,
    evidenceStatus: "EVIDENCE_FOUND" | "NO_EVIDENCE",
    request: JsonObject = { query: "checkout 500" }
  ) =>
    Effect.gen(function* () {
      const p = projecting(runId, id, String(agentResult.tool), request)
      yield* store.create(p)
      yield* store.transition(
        toReady(p, {
          evidenceStatus,
          rawResponse: {},
          rawBytes: 2,
          agentResult,
          projectionBytes: 10,
          truncated: false,
          at: 1001
        })
      )
    })
  yield* ready(RUN, "call-k", knowledge, "EVIDENCE_FOUND")
  yield* ready(RUN, "call-l", logs, "EVIDENCE_FOUND")
  yield* ready(RUN, "call-m", rows, "EVIDENCE_FOUND")
  yield* ready(RUN, "call-e", empty, "NO_EVIDENCE", {
    topic: "application",
    query: "deadlock",
    lookback_minutes: 60
  })
  yield* ready(OTHER_RUN, "call-x", knowledge, "EVIDENCE_FOUND")
  yield* store.create(projecting(RUN, "call-p"))
  const failed = projecting(RUN, "call-err")
  yield* store.create(failed)
  yield* store.transition(toError(failed, "BACKEND_ERROR", 1002))
})

const check = (draft: DraftReport, layer = InMemoryCanonicalStore.layer()) =>
  Effect.runPromise(
    Effect.gen(function* () {
      yield* seed.pipe(Effect.orDie)
      return yield* evidenceGuard({ runId: RUN, draft })
    }).pipe(Effect.provide(layer))
  )

const one = (claim: DraftReport["claims"][number]): DraftReport => ({ summary: "s", claims: [claim] })

describe("evidenceGuard", () => {
  it("passes real citations of every kind and returns the stored evidence", async () => {
    const result = await check({
      summary: "pool exhausted",
      claims: [
        {
          text: "runbook",
          citations: [{ tool_call_id: "call-k", kind: "document", ref: "runbooks/db-pool.md" }]
        },
        { text: "pattern", citations: [{ tool_call_id: "call-l", kind: "pattern", ref: "p-1a2b" }] },
        {
          text: "excerpt",
          citations: [{ tool_call_id: "call-k", kind: "excerpt", ref: "the  Connection pool is exhausted" }]
        },
        {
          text: "row index",
          citations: [{ tool_call_id: "call-m", kind: "row", ref: "rows[1].status=PAID" }]
        },
        { text: "row value", citations: [{ tool_call_id: "call-m", kind: "row", ref: "status=FAILED" }] },
        {
          text: SCOPED,
          negative: true,
          citations: [{ tool_call_id: "call-e", kind: "no_evidence", ref: "" }]
        }
      ]
    })
    expect(result.failures).toEqual([])
    expect(result.passed).toBe(true)
    expect(result.evidence.map((e) => e.toolCallId)).toEqual(["call-k", "call-l", "call-m", "call-e"])
    expect(result.evidence[0]?.agentResult).toEqual(knowledge)
  })

  it("refuses a made-up toolCallId", async () => {
    const r = await check(
      one({
        text: "x",
        citations: [{ tool_call_id: "call-zzz", kind: "document", ref: "runbooks/db-pool.md" }]
      })
    )
    expect(r.passed).toBe(false)
    expect(r.failures.map((f) => f.reason)).toEqual(["INVOCATION_NOT_FOUND"])
  })

  it("refuses a malformed toolCallId without using it in a key", async () => {
    const r = await check(
      one({ text: "x", citations: [{ tool_call_id: "a:{b}*", kind: "document", ref: "d" }] })
    )
    expect(r.failures.map((f) => f.reason)).toEqual(["INVALID_TOOL_CALL_ID"])
  })

  it("refuses a real toolCallId of another run", async () => {
    const r = await check(
      one({
        text: "x",
        citations: [{ tool_call_id: "call-x", kind: "document", ref: "runbooks/db-pool.md" }]
      })
    )
    expect(r.passed).toBe(false)
    expect(r.failures.map((f) => f.reason)).toEqual(["INVOCATION_NOT_FOUND"])
  })

  it("refuses PROJECTING and ERROR records", async () => {
    const r = await check({
      summary: "",
      claims: [
        { text: "a", citations: [{ tool_call_id: "call-p", kind: "excerpt", ref: "anything at all" }] },
        { text: "b", citations: [{ tool_call_id: "call-err", kind: "excerpt", ref: "anything at all" }] }
      ]
    })
    expect(r.passed).toBe(false)
    expect(r.failures.map((f) => f.reason)).toEqual(["NOT_READY", "INVOCATION_ERROR"])
  })

  it("refuses NO_EVIDENCE for a positive claim but accepts it for a negative one", async () => {
    const positive = await check(
      one({ text: "deadlocks", citations: [{ tool_call_id: "call-e", kind: "no_evidence", ref: "" }] })
    )
    expect(positive.failures.map((f) => f.reason)).toEqual(["NO_EVIDENCE_FOR_POSITIVE_CLAIM"])
    const excerpt = await check(
      one({ text: "deadlocks", citations: [{ tool_call_id: "call-e", kind: "excerpt", ref: "application" }] })
    )
    expect(excerpt.failures.map((f) => f.reason)).toEqual(["NO_EVIDENCE_FOR_POSITIVE_CLAIM"])
    const negative = await check(
      one({
        text: SCOPED,
        negative: true,
        citations: [{ tool_call_id: "call-e", kind: "no_evidence", ref: "" }]
      })
    )
    expect(negative.passed).toBe(true)
  })

  it("refuses unscoped or absolute negative claims citing NO_EVIDENCE (UNSCOPED_NEGATIVE_CLAIM)", async () => {
    const neg = (text: string, kind: "no_evidence" | "excerpt" = "no_evidence") =>
      check(one({ text, negative: true, citations: [{ tool_call_id: "call-e", kind, ref: "" }] }))
    for (const text of [
      "The database is healthy.",
      "No deadlock logs.",
      "No deadlocks exist in the application.",
      `${SCOPED} Deadlocks are ruled out.`,
      "No application logs matched deadlock in the last 5 minutes."
    ]) {
      expect(
        (await neg(text)).failures.map((f) => f.reason),
        text
      ).toEqual(["UNSCOPED_NEGATIVE_CLAIM"])
    }
    expect((await neg(SCOPED)).passed).toBe(true)
    expect((await neg("No application logs matched deadlock in the last 60 minutes.")).passed).toBe(true)
    // the scope rule holds whatever kind cites the NO_EVIDENCE record
    expect((await neg("The database is healthy.", "excerpt")).failures.map((f) => f.reason)).toEqual([
      "UNSCOPED_NEGATIVE_CLAIM"
    ])
  })

  it("refuses bare row indexes (ROW_REF_TOO_WEAK) and rows cited by a cell that is not there", async () => {
    const row = (ref: string) =>
      check(one({ text: "12 failed payments", citations: [{ tool_call_id: "call-m", kind: "row", ref }] }))
    for (const ref of ["0", "rows[0]", "1"]) {
      expect(
        (await row(ref)).failures.map((f) => f.reason),
        ref
      ).toEqual(["ROW_REF_TOO_WEAK"])
    }
    expect((await row("rows[0].status=PAID")).failures.map((f) => f.reason)).toEqual(["REF_NOT_FOUND"])
    expect((await row("rows[0].n=12")).passed).toBe(true)
  })

  it("refuses excerpts that only match non-evidence fields", async () => {
    const excerpt = (tool_call_id: string, ref: string) =>
      check(one({ text: "x", citations: [{ tool_call_id, kind: "excerpt", ref }] }))
    expect((await excerpt("call-l", "pool timeout")).passed).toBe(true)
    for (const [id, ref] of [
      ["call-k", "runbooks/db-pool.md"],
      ["call-l", "elastic-application"],
      ["call-l", "checkout"],
      ["call-m", "payment_count"]
    ] as const) {
      expect(
        (await excerpt(id, ref)).failures.map((f) => f.reason),
        ref
      ).toEqual(["REF_NOT_FOUND"])
    }
  })

  it("refuses a no_evidence citation of a record that found evidence", async () => {
    const r = await check(
      one({
        text: "none",
        negative: true,
        citations: [{ tool_call_id: "call-k", kind: "no_evidence", ref: "" }]
      })
    )
    expect(r.failures.map((f) => f.reason)).toEqual(["NOT_NO_EVIDENCE"])
  })

  it("refuses refs absent from the stored projection", async () => {
    const r = await check({
      summary: "",
      claims: [
        {
          text: "a",
          citations: [
            { tool_call_id: "call-k", kind: "excerpt", ref: "the database was restarted by an operator" }
          ]
        },
        { text: "b", citations: [{ tool_call_id: "call-k", kind: "document", ref: "runbooks/other.md" }] },
        { text: "c", citations: [{ tool_call_id: "call-l", kind: "pattern", ref: "p-ffff" }] },
        { text: "d", citations: [{ tool_call_id: "call-m", kind: "row", ref: "rows[7].status=FAILED" }] },
        { text: "e", citations: [{ tool_call_id: "call-m", kind: "row", ref: "status=REFUNDED" }] },
        // the request echo (`query`) is not evidence
        {
          text: "f",
          citations: [{ tool_call_id: "call-k", kind: "excerpt", ref: "checkout connection pool exhausted" }]
        },
        // too short to prove anything
        { text: "g", citations: [{ tool_call_id: "call-k", kind: "excerpt", ref: "pool" }] }
      ]
    })
    expect(r.passed).toBe(false)
    expect(r.failures.map((f) => [f.claimIndex, f.reason])).toEqual([
      [0, "REF_NOT_FOUND"],
      [1, "REF_NOT_FOUND"],
      [2, "REF_NOT_FOUND"],
      [3, "REF_NOT_FOUND"],
      [4, "REF_NOT_FOUND"],
      [5, "REF_NOT_FOUND"],
      [6, "REF_NOT_FOUND"]
    ])
  })

  it("refuses claims without citations and drafts without claims", async () => {
    const r = await check(one({ text: "trust me", citations: [] }))
    expect(r.failures.map((f) => f.reason)).toEqual(["NO_CITATIONS"])
    const none = await check({ summary: "nothing", claims: [] })
    expect(none.passed).toBe(false)
    expect(none.failures.map((f) => f.reason)).toEqual(["NO_CLAIMS"])
  })

  it("fails closed when the store is down", async () => {
    const down: CanonicalInvocationStoreShape = {
      create: () => Effect.void,
      transition: () => Effect.void,
      get: () => Effect.fail(new StoreError({ operation: "get", reason: "UNAVAILABLE" }))
    }
    const r = await check(
      {
        summary: "",
        claims: [
          {
            text: "a",
            citations: [{ tool_call_id: "call-k", kind: "document", ref: "runbooks/db-pool.md" }]
          },
          { text: "b", citations: [{ tool_call_id: "call-l", kind: "pattern", ref: "p-1a2b" }] }
        ]
      },
      Layer.succeed(CanonicalInvocationStore, down)
    )
    expect(r.passed).toBe(false)
    expect(r.storeAvailable).toBe(false)
    expect(r.evidence).toEqual([])
    expect(r.claims.map((c) => c.passed)).toEqual([false, false])
    expect(r.failures.map((f) => f.reason)).toEqual(["STORE_UNAVAILABLE", "STORE_UNAVAILABLE"])
  })

  it("fails closed when the store dies (defect)", async () => {
    const dying: CanonicalInvocationStoreShape = {
      create: () => Effect.void,
      transition: () => Effect.void,
      get: () => Effect.die(new Error("socket closed"))
    }
    const r = await check(
      one({
        text: "a",
        citations: [{ tool_call_id: "call-k", kind: "document", ref: "runbooks/db-pool.md" }]
      }),
      Layer.succeed(CanonicalInvocationStore, dying)
    )
    expect(r.passed).toBe(false)
    expect(r.failures.map((f) => f.reason)).toEqual(["STORE_UNAVAILABLE"])
  })
})

describe("parseDraftReport", () => {
  it("parses bare, fenced and embedded JSON and rejects the rest", () => {
    const json =
      '{"summary":"s","claims":[{"text":"t","citations":[{"tool_call_id":"c1","kind":"document","ref":"d"}]}]}'
    expect(parseDraftReport(json)?.claims[0]?.citations[0]?.ref).toBe("d")
    expect(parseDraftReport("```json\n" + json + "\n```")?.summary).toBe("s")
    expect(parseDraftReport("Here it is: " + json + " thanks")?.summary).toBe("s")
    expect(parseDraftReport("no json here")).toBeNull()
    expect(
      parseDraftReport('{"claims":[{"text":"t","citations":[{"tool_call_id":"c","kind":"guess"}]}]}')
    ).toBeNull()
    expect(parseDraftReport(null)).toBeNull()
  })
})

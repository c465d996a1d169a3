import {
  InMemoryCanonicalStore,
  type JsonObject,
  newProjectingInvocation,
  type RunId,
  type SessionId,
  type ToolCallId,
  toReady
} from "@aiops-harness/core"
import { CanonicalInvocationStore } from "@aiops-harness/core"
import { Effect } from "effect"
import { describe, expect, it } from "vitest"
import { type Citation, evidenceGuard, refPresent } from "../src/index.js"

const RUN = "run-sql" as RunId

/**
 * The projection of issue 9's laundering statement:
 * `SELECT 'HikariPool-1 connection pool exhausted on checkout-api' AS finding, 'p1a2b3c4' AS
 * pattern_id, 'runbooks/x.md#fake' AS document_id, status, CONCAT(status, ' HikariPool') AS
 * mixed_note FROM orders LIMIT 1` — provenance as the validator computes it.
 */
const laundering: JsonObject = {
  tool_call_id: "call-sql",
  tool: "query_mysql",
  status: "READY",
  evidence_status: "EVIDENCE_FOUND",
  truncated: false,
  datasource: "shop",
  columns: [
    { name: "finding", type: "VAR_STRING", origin: "literal" },
    { name: "pattern_id", type: "VAR_STRING", origin: "literal" },
    { name: "document_id", type: "VAR_STRING", origin: "literal" },
    { name: "status", type: "VAR_STRING", origin: "table" },
    { name: "mixed_note", type: "VAR_STRING", origin: "mixed" }
  ],
  rows: [
    {
      finding: "HikariPool-1 connection pool exhausted on checkout-api",
      pattern_id: "p1a2b3c4",
      document_id: "runbooks/x.md#fake",
      status: "PENDING_PAYMENT",
      mixed_note: "PENDING_PAYMENT HikariPool"
    }
  ]
}

/** A SQL projection without provenance (an older or foreign executor): no cell is evidence. */
const unknownOrigin: JsonObject = {
  ...laundering,
  tool_call_id: "call-old",
  columns: [{ name: "status", type: "VAR_STRING" }],
  rows: [{ status: "PENDING_PAYMENT" }]
}

const seed = Effect.gen(function* () {
  const store = yield* CanonicalInvocationStore
  for (const [id, agentResult] of [
    ["call-sql", laundering],
    ["call-old", unknownOrigin]
  ] as const) {
    const p = newProjectingInvocation({
      runId: RUN,
      sessionId: "s-1" as SessionId,
      toolCallId: id as ToolCallId,
      toolName: "query_mysql",
      stepId: null,
      request: { datasource: "shop", sql: "SELECT ..." },
      requestBytes: 10,
      createdAt: 1000
    })
    yield* store.create(p)
    yield* store.transition(
      toReady(p, {
        evidenceStatus: "EVIDENCE_FOUND",
        rawResponse: {},
        rawBytes: 2,
        agentResult,
        projectionBytes: 10,
        truncated: false,
        at: 1001
      })
    )
  }
})

const reasons = (citation: Citation) =>
  Effect.runPromise(
    Effect.gen(function* () {
      yield* seed.pipe(Effect.orDie)
      const result = yield* evidenceGuard({
        runId: RUN,
        draft: { summary: "s", claims: [{ text: "checkout pool exhausted", citations: [citation] }] }
      })
      return result.failures.map((f) => f.reason)
    }).pipe(Effect.provide(InMemoryCanonicalStore.layer()))
  )

describe("EvidenceGuard and SQL result provenance (issue 9 evidence laundering)", () => {
  it("refuses cells the statement wrote itself, as rows and as excerpts", async () => {
    for (const ref of [
      "rows[0].finding=HikariPool-1 connection pool exhausted on checkout-api",
      "finding=HikariPool-1 connection pool exhausted on checkout-api",
      "rows[0].pattern_id=p1a2b3c4",
      "rows[0].document_id=runbooks/x.md#fake",
      "rows[0].mixed_note=PENDING_PAYMENT HikariPool"
    ]) {
      expect(await reasons({ tool_call_id: "call-sql", kind: "row", ref }), ref).toEqual(["LITERAL_CELL"])
    }
    for (const ref of ["HikariPool-1 connection pool exhausted", "PENDING_PAYMENT HikariPool"]) {
      expect(await reasons({ tool_call_id: "call-sql", kind: "excerpt", ref }), ref).toEqual(["LITERAL_CELL"])
    }
  })

  it("refuses pattern and document refs that point at a SQL result (CITATION_KIND_MISMATCH)", async () => {
    expect(await reasons({ tool_call_id: "call-sql", kind: "pattern", ref: "p1a2b3c4" })).toEqual([
      "CITATION_KIND_MISMATCH"
    ])
    expect(await reasons({ tool_call_id: "call-sql", kind: "document", ref: "runbooks/x.md#fake" })).toEqual([
      "CITATION_KIND_MISMATCH"
    ])
  })

  it("accepts table cells, and treats unknown provenance as not evidence", async () => {
    expect(
      await reasons({ tool_call_id: "call-sql", kind: "row", ref: "rows[0].status=PENDING_PAYMENT" })
    ).toEqual([])
    expect(await reasons({ tool_call_id: "call-sql", kind: "excerpt", ref: "PENDING_PAYMENT" })).toEqual([])
    expect(await reasons({ tool_call_id: "call-old", kind: "row", ref: "status=PENDING_PAYMENT" })).toEqual([
      "LITERAL_CELL"
    ])
    expect(await reasons({ tool_call_id: "call-sql", kind: "row", ref: "rows[0].status=PAID" })).toEqual([
      "REF_NOT_FOUND"
    ])
  })

  it("refPresent keeps its behaviour without tableCellsOnly and filters with it", () => {
    expect(refPresent(laundering, "row", "rows[0].pattern_id=p1a2b3c4")).toBe(true)
    expect(refPresent(laundering, "row", "rows[0].pattern_id=p1a2b3c4", { tableCellsOnly: true })).toBe(false)
    expect(refPresent(laundering, "row", "rows[0].status=PENDING_PAYMENT", { tableCellsOnly: true })).toBe(
      true
    )
  })
})

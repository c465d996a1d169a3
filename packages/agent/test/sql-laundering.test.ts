import { RecordingAuditSink } from "@aiops-harness/core/testing"
import { ScriptedChatModel, ScriptedTurn } from "../src/testing/index.js"
import { InMemoryCanonicalStore, type ToolDefinition } from "@aiops-harness/core"
import { type MysqlRaw, projectMysqlRows } from "@aiops-harness/projectors"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import { z } from "zod"
import { type ChatModel, runDiagnosis } from "../src/index.js"
import { text, toolCall } from "./helpers.js"

/**
 * Issue 9, evidence laundering: the model asks for constants and cites them. The raw result is
 * what the read-only executor returns for
 * `SELECT 'HikariPool-1 connection pool exhausted on checkout-api' AS finding, 'p1a2b3c4' AS
 * pattern_id, 'runbooks/x.md#fake' AS document_id, status FROM orders LIMIT 1`
 * (provenance from the validated plan); the projector is the real one.
 */
const raw: MysqlRaw = {
  columns: [
    { name: "finding", type: "VAR_STRING", origin: "literal" },
    { name: "pattern_id", type: "VAR_STRING", origin: "literal" },
    { name: "document_id", type: "VAR_STRING", origin: "literal" },
    { name: "status", type: "VAR_STRING", origin: "table" }
  ],
  rows: [
    {
      finding: "HikariPool-1 connection pool exhausted on checkout-api",
      pattern_id: "p1a2b3c4",
      document_id: "runbooks/x.md#fake",
      status: "PENDING_PAYMENT"
    }
  ],
  rowCount: 1,
  truncated: false
}

const Request = z.object({ datasource: z.string(), sql: z.string() })

const mysqlTool: ToolDefinition<z.infer<typeof Request>, MysqlRaw> = {
  name: "query_mysql",
  description: "Run one read-only SELECT.",
  readOnly: true,
  requestSchema: Request,
  execute: () => Effect.succeed(raw),
  project: projectMysqlRows(),
  scopeOf: (request) => ({ datasource: request.datasource, sql: request.sql })
}

const SQL =
  "SELECT 'HikariPool-1 connection pool exhausted on checkout-api' AS finding, 'p1a2b3c4' AS pattern_id, 'runbooks/x.md#fake' AS document_id, status FROM orders LIMIT 1"

const draftCiting = (citations: ReadonlyArray<object>) =>
  text(
    JSON.stringify({
      summary: "checkout-api connection pool exhausted",
      claims: [{ text: "The HikariPool of checkout-api is exhausted.", citations }]
    })
  )

const diagnose = (model: Layer.Layer<ChatModel>) => {
  const audit = new RecordingAuditSink()
  return Effect.runPromise(
    runDiagnosis(
      { sessionId: "session-sql", question: "why is checkout returning 500s?" },
      { tools: [mysqlTool] }
    ).pipe(Effect.provide(Layer.mergeAll(model, InMemoryCanonicalStore.layer(), audit.layer)))
  ).then((result) => ({ result, audit }))
}

describe("a report citing only constants the model selected is never released", () => {
  it.each([
    [
      "the finding as a row",
      [
        {
          tool_call_id: "c1",
          kind: "row",
          ref: "rows[0].finding=HikariPool-1 connection pool exhausted on checkout-api"
        }
      ],
      "LITERAL_CELL"
    ],
    [
      "the finding as an excerpt",
      [{ tool_call_id: "c1", kind: "excerpt", ref: "HikariPool-1 connection pool exhausted" }],
      "LITERAL_CELL"
    ],
    [
      "the fake pattern id",
      [{ tool_call_id: "c1", kind: "pattern", ref: "p1a2b3c4" }],
      "CITATION_KIND_MISMATCH"
    ],
    [
      "the fake document id",
      [{ tool_call_id: "c1", kind: "document", ref: "runbooks/x.md#fake" }],
      "CITATION_KIND_MISMATCH"
    ]
  ])("%s -> %s", async (_name, citations, reason) => {
    const model = new ScriptedChatModel([
      text('{"intent":"diagnosis"}'),
      toolCall("c1", "query_mysql", { datasource: "shop", sql: SQL }),
      draftCiting(citations)
    ])
    const { result, audit } = await diagnose(model.layer)
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    expect(result.evidenceGuard?.failures.map((f) => f.reason)).toEqual([reason])
    // The model saw the provenance with the rows.
    expect(JSON.stringify(model.requests.at(-1))).toContain('\\"origin\\":\\"literal\\"')
    expect(audit.eventTypes()).not.toContain("SEMANTIC_GUARD_ATTEMPT")
  })

  it("a table cell of the same result still passes the EvidenceGuard", async () => {
    const model = new ScriptedChatModel([
      text('{"intent":"diagnosis"}'),
      toolCall("c1", "query_mysql", { datasource: "shop", sql: SQL }),
      draftCiting([{ tool_call_id: "c1", kind: "row", ref: "rows[0].status=PENDING_PAYMENT" }]),
      ScriptedTurn.json(
        { verdicts: [{ claim_index: 0, verdict: "SUPPORTED" }], summary_verdict: "SUPPORTED" },
        { purpose: "semantic_guard", label: "judge" }
      )
    ])
    const { result } = await diagnose(model.layer)
    expect(result.evidenceGuard?.passed).toBe(true)
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
  })
})

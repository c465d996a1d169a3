import type { ControlView } from "@aiops-harness/core"
import { Data, Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  type CheckedScope,
  checkedScopeOf,
  type DraftReport,
  type EvidenceGuardResult,
  releaseDecision,
  type SemanticGuardResult,
  semanticGuard
} from "../src/index.js"

const draft: DraftReport = {
  summary: "Checkout 500s come from an exhausted DB connection pool.",
  claims: [
    {
      text: "The runbook links HikariPool timeouts to pool exhaustion.",
      citations: [{ tool_call_id: "c1", kind: "document", ref: "runbooks/db.md" }]
    },
    {
      text: "No deadlock logs in the window.",
      negative: true,
      citations: [{ tool_call_id: "c2", kind: "no_evidence", ref: "" }]
    }
  ],
  next_steps: ["Raise the pool size"]
}
const evidencePassed: EvidenceGuardResult = {
  passed: true,
  storeAvailable: true,
  claims: [],
  failures: [],
  evidence: []
}
const semanticPassed: SemanticGuardResult = {
  passed: true,
  verdict: "SUPPORTED",
  verdicts: [
    { claim_index: 0, verdict: "SUPPORTED" },
    { claim_index: 1, verdict: "SUPPORTED" }
  ],
  usage: null,
  model: "m",
  errorTag: null
}
const checked: CheckedScope[] = [
  {
    toolCallId: "c1",
    tool: "lookup_knowledge",
    status: "READY",
    evidenceStatus: "EVIDENCE_FOUND",
    errorCode: null,
    scope: { query: "checkout 500" }
  },
  {
    toolCallId: "c2",
    tool: "query_logs",
    status: "READY",
    evidenceStatus: "NO_EVIDENCE",
    errorCode: null,
    scope: {
      topic: "application",
      query: "deadlock",
      service: "checkout",
      start_time: "2024-01-01T00:00:00Z",
      end_time: "2024-01-01T01:00:00Z"
    }
  },
  {
    toolCallId: "c3",
    tool: "query_mysql",
    status: "ERROR",
    evidenceStatus: "ERROR",
    errorCode: "INVALID_REQUEST",
    scope: null
  }
]

describe("releaseDecision", () => {
  it("publishes when both guards pass", () => {
    const r = releaseDecision({ draft, evidence: evidencePassed, semantic: semanticPassed, checked })
    expect(r.decision).toBe("PUBLISH_REPORT")
    expect(r.missing).toEqual([])
    expect(r.content).toContain("exhausted DB connection pool")
    expect(r.content).toContain("c1:document:runbooks/db.md")
    expect(r.content).toContain("Raise the pool size")
  })

  it("refuses when the evidence guard failed, listing checked scopes, windows and what is missing", () => {
    const evidence: EvidenceGuardResult = {
      ...evidencePassed,
      passed: false,
      failures: [{ claimIndex: 0, toolCallId: "c9", kind: "document", reason: "INVOCATION_NOT_FOUND" }]
    }
    const r = releaseDecision({ draft, evidence, semantic: null, checked, stopReason: "NO_GAIN" })
    expect(r.decision).toBe("CANNOT_CONCLUDE")
    expect(r.content).toContain("Cannot conclude")
    expect(r.content).toContain("NO_GAIN")
    expect(r.content).toContain('- lookup_knowledge query="checkout 500" -> EVIDENCE_FOUND')
    expect(r.content).toContain("window 2024-01-01T00:00:00Z..2024-01-01T01:00:00Z")
    expect(r.content).toContain("query_mysql (refused before execution) -> ERROR INVALID_REQUEST")
    expect(r.missing).toEqual(["claim 1: INVOCATION_NOT_FOUND (c9)"])
  })

  it("refuses when the semantic guard did not support a claim", () => {
    const semantic: SemanticGuardResult = {
      ...semanticPassed,
      passed: false,
      verdict: "PARTIALLY_SUPPORTED",
      verdicts: [
        { claim_index: 0, verdict: "PARTIALLY_SUPPORTED" },
        { claim_index: 1, verdict: "SUPPORTED" }
      ]
    }
    const r = releaseDecision({ draft, evidence: evidencePassed, semantic, checked })
    expect(r.decision).toBe("CANNOT_CONCLUDE")
    expect(r.missing).toEqual(["claim 1: judged PARTIALLY_SUPPORTED"])
  })

  it("refuses without a draft, without guards, or with only negative claims", () => {
    expect(releaseDecision({ draft: null, evidence: null, semantic: null, checked: [] })).toMatchObject({
      decision: "CANNOT_CONCLUDE",
      missing: ["a draft report in the expected format"]
    })
    expect(releaseDecision({ draft: null, evidence: null, semantic: null, checked: [] }).content).toContain(
      "no tool calls were made"
    )
    expect(releaseDecision({ draft, evidence: evidencePassed, semantic: null, checked }).decision).toBe(
      "CANNOT_CONCLUDE"
    )
    expect(releaseDecision({ draft, evidence: null, semantic: semanticPassed, checked }).decision).toBe(
      "CANNOT_CONCLUDE"
    )
    const negativeOnly: DraftReport = { summary: "nothing", claims: [draft.claims[1]!] }
    const r = releaseDecision({
      draft: negativeOnly,
      evidence: evidencePassed,
      semantic: { ...semanticPassed, verdicts: [{ claim_index: 0, verdict: "SUPPORTED" }] },
      checked
    })
    expect(r.decision).toBe("CANNOT_CONCLUDE")
    expect(r.missing[0]).toContain("positive evidence")
  })

  it("reports an unavailable store and stays bounded", () => {
    const evidence: EvidenceGuardResult = {
      passed: false,
      storeAvailable: false,
      claims: [],
      evidence: [],
      failures: [{ claimIndex: 0, toolCallId: null, kind: null, reason: "STORE_UNAVAILABLE" }]
    }
    const many: CheckedScope[] = Array.from({ length: 50 }, (_, i) => ({
      ...checked[0]!,
      toolCallId: `c${i}`,
      scope: { query: "x".repeat(500) }
    }))
    const r = releaseDecision({ draft, evidence, semantic: null, checked: many, limits: { maxChars: 2000 } })
    expect(r.decision).toBe("CANNOT_CONCLUDE")
    expect(r.missing).toContain("proof of the cited evidence: the evidence store is unavailable")
    expect(r.content.length).toBeLessThanOrEqual(2000)
    expect(r.content).toContain("… and 40 more")
  })

  it("builds checked scopes from a ControlView without control-only fields", () => {
    const control = {
      toolCallId: "c1",
      toolName: "query_logs",
      recordCreated: true,
      status: "READY",
      evidenceStatus: "NO_EVIDENCE",
      errorCode: null,
      returnedCount: 0,
      truncated: false,
      scope: { topic: "application" },
      duplicateIdentity: "query_logs:{}",
      requestBytes: 1,
      rawBytes: 1,
      projectionBytes: 1,
      latencyMs: 1,
      budgetRemaining: { toolCalls: 3, requestBytes: 1, rawBytes: 1, projectionBytes: 1 }
    } satisfies ControlView
    expect(checkedScopeOf(control)).toEqual({
      toolCallId: "c1",
      tool: "query_logs",
      status: "READY",
      evidenceStatus: "NO_EVIDENCE",
      errorCode: null,
      scope: { topic: "application" }
    })
  })
})

class JudgeDown extends Data.TaggedError("JudgeDown")<{}> {}

describe("semanticGuard", () => {
  const usage = { promptTokens: 10, completionTokens: 5, totalTokens: 15 }
  it("passes when every claim is SUPPORTED and hands the stored evidence to the judge", async () => {
    let seen: unknown = null
    const r = await Effect.runPromise(
      semanticGuard({
        question: "why?",
        draft,
        evidence: [
          {
            toolCallId: "c1",
            toolName: "lookup_knowledge",
            evidenceStatus: "EVIDENCE_FOUND",
            agentResult: { a: 1 }
          }
        ],
        judge: (input) => {
          seen = input.evidence
          return Effect.succeed({
            verdicts: [
              { claim_index: 0, verdict: "SUPPORTED" },
              { claim_index: 1, verdict: "SUPPORTED" }
            ],
            usage,
            model: "judge-1"
          })
        }
      })
    )
    expect(r).toMatchObject({ passed: true, verdict: "SUPPORTED", usage, model: "judge-1" })
    expect(seen).toEqual([
      {
        tool_call_id: "c1",
        tool: "lookup_knowledge",
        evidence_status: "EVIDENCE_FOUND",
        observation: { a: 1 }
      }
    ])
  })

  it("takes the weakest verdict and treats a skipped claim as UNSUPPORTED", async () => {
    const partial = await Effect.runPromise(
      semanticGuard({
        question: "q",
        draft,
        evidence: [],
        judge: () =>
          Effect.succeed({
            verdicts: [
              { claim_index: 0, verdict: "SUPPORTED" as const },
              { claim_index: 1, verdict: "PARTIALLY_SUPPORTED" as const }
            ],
            usage: null,
            model: "m"
          })
      })
    )
    expect(partial).toMatchObject({ passed: false, verdict: "PARTIALLY_SUPPORTED", usage: null })
    const skipped = await Effect.runPromise(
      semanticGuard({
        question: "q",
        draft,
        evidence: [],
        judge: () =>
          Effect.succeed({ verdicts: [{ claim_index: 0, verdict: "SUPPORTED" as const }], usage, model: "m" })
      })
    )
    expect(skipped.verdict).toBe("UNSUPPORTED")
    expect(skipped.verdicts[1]?.verdict).toBe("UNSUPPORTED")
  })

  it("fails closed when the judge fails or dies", async () => {
    const failed = await Effect.runPromise(
      semanticGuard({ question: "q", draft, evidence: [], judge: () => Effect.fail(new JudgeDown()) })
    )
    expect(failed).toMatchObject({
      passed: false,
      verdict: "JUDGE_FAILED",
      errorTag: "JudgeDown",
      usage: null
    })
    const died = await Effect.runPromise(
      semanticGuard({ question: "q", draft, evidence: [], judge: () => Effect.die("boom") })
    )
    expect(died).toMatchObject({ passed: false, verdict: "JUDGE_FAILED", errorTag: "JudgeDefect" })
  })

  it("never passes an empty draft", async () => {
    const r = await Effect.runPromise(
      semanticGuard({
        question: "q",
        draft: { summary: "", claims: [] },
        evidence: [],
        judge: () => Effect.succeed({ verdicts: [], usage: null, model: "m" })
      })
    )
    expect(r.passed).toBe(false)
  })
})

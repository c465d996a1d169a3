import type { ControlView } from "@aiops-harness/core"
import { Data, Effect } from "effect"
import { describe, expect, it } from "vitest"
import {
  type CheckedScope,
  checkedScopeOf,
  type DraftReport,
  type EvidenceGuardResult,
  isSystemObservationTool,
  releaseDecision,
  type SemanticGuardResult,
  semanticGuard,
  systemBackedClaims
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
    },
    {
      text: "Checkout logged 40 HikariPool timeouts.",
      citations: [{ tool_call_id: "c4", kind: "pattern", ref: "p-1" }]
    }
  ],
  next_steps: ["Raise the pool size"]
}
const evidencePassed: EvidenceGuardResult = {
  passed: true,
  storeAvailable: true,
  claims: [],
  failures: [],
  evidence: [
    { toolCallId: "c1", toolName: "lookup_knowledge", evidenceStatus: "EVIDENCE_FOUND", agentResult: {} },
    { toolCallId: "c2", toolName: "query_logs", evidenceStatus: "NO_EVIDENCE", agentResult: {} },
    { toolCallId: "c4", toolName: "query_logs", evidenceStatus: "EVIDENCE_FOUND", agentResult: {} }
  ]
}
const semanticPassed: SemanticGuardResult = {
  passed: true,
  verdict: "SUPPORTED",
  verdicts: [
    { claim_index: 0, verdict: "SUPPORTED" },
    { claim_index: 1, verdict: "SUPPORTED" },
    { claim_index: 2, verdict: "SUPPORTED" }
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
    expect(r.content).toContain("c4:pattern:p-1")
    expect(r.content).toContain("Raise the pool size")
  })

  // the demo's "calm" world: runbooks match "checkout slow", every system observation is empty
  const calm: DraftReport = {
    summary: "Checkout is slow because of pool exhaustion.",
    claims: draft.claims.slice(0, 2)
  }
  const calmChecked: CheckedScope[] = [checked[0]!, checked[1]!]

  it("refuses a report carried by runbook quotes only, saying what the runbooks suggest and what was checked", () => {
    const r = releaseDecision({
      draft: calm,
      evidence: evidencePassed,
      semantic: semanticPassed,
      checked: calmChecked
    })
    expect(r.decision).toBe("CANNOT_CONCLUDE")
    expect(r.missing).toHaveLength(1)
    expect(r.missing[0]).toContain("a system observation")
    expect(r.content).toContain("runbooks suggest a cause, but no observation of the system confirmed it")
    expect(r.content).toContain("- The runbook links HikariPool timeouts to pool exhaustion.")
    expect(r.content).not.toContain("- No deadlock logs in the window.")
    expect(r.content).toContain('- query_logs topic="application", query="deadlock"')
    expect(r.content).toContain("-> NO_EVIDENCE")
    expect(r.content).toContain("System observations checked: 1, with evidence found: 0")
    const noSystem = releaseDecision({
      draft: calm,
      evidence: evidencePassed,
      semantic: semanticPassed,
      checked: [checked[0]!],
      systemToolsOffered: true
    })
    expect(noSystem.content).toContain("No system observation (logs, database) was made.")
  })

  it("a knowledge-only deployment (no system tool offered) may release a runbook-backed report", () => {
    const base = { draft: calm, evidence: evidencePassed, semantic: semanticPassed, checked: [checked[0]!] }
    expect(releaseDecision({ ...base, systemToolsOffered: false }).decision).toBe("PUBLISH_REPORT")
    // default: derived from whether a system tool was called at all
    expect(releaseDecision(base).decision).toBe("PUBLISH_REPORT")
    expect(releaseDecision({ ...base, systemToolsOffered: true }).decision).toBe("CANNOT_CONCLUDE")
  })

  it("refuses when a system observation found evidence but no claim cites it", () => {
    const found: CheckedScope = { ...checked[1]!, toolCallId: "c4", evidenceStatus: "EVIDENCE_FOUND" }
    const r = releaseDecision({
      draft: calm,
      evidence: evidencePassed,
      semantic: semanticPassed,
      checked: [...calmChecked, found]
    })
    expect(r.decision).toBe("CANNOT_CONCLUDE")
    expect(r.content).toContain(
      "System observations checked: 2, with evidence found: 1 (none cited in support)"
    )
  })

  it("classifies tools as the caller says", () => {
    const base = {
      draft,
      evidence: evidencePassed,
      semantic: semanticPassed,
      checked,
      systemToolsOffered: true
    }
    expect(
      releaseDecision({
        ...base,
        classification: { knowledgeTools: new Set(["lookup_knowledge", "query_logs"]) }
      }).decision
    ).toBe("CANNOT_CONCLUDE")
    expect(
      releaseDecision({ ...base, classification: { systemTools: new Set(["query_mysql"]) } }).decision
    ).toBe("CANNOT_CONCLUDE")
    expect(
      releaseDecision({ ...base, classification: { systemTools: new Set(["query_logs"]) } }).decision
    ).toBe("PUBLISH_REPORT")
    // a runbook claim counts once the caller says its tool observes the system
    expect(
      releaseDecision({ ...base, draft: calm, classification: { knowledgeTools: new Set() } }).decision
    ).toBe("PUBLISH_REPORT")
    expect(isSystemObservationTool("lookup_knowledge")).toBe(false)
    expect(isSystemObservationTool("query_metrics")).toBe(true)
  })

  it("counts only passed positive claims citing a READY EVIDENCE_FOUND system record", () => {
    expect(systemBackedClaims(draft, evidencePassed)).toEqual([2])
    const failedClaim: EvidenceGuardResult = {
      ...evidencePassed,
      passed: false,
      claims: [2, 1, 0].map((claimIndex) => ({
        claimIndex,
        negative: claimIndex === 1,
        passed: claimIndex !== 2,
        failures: []
      }))
    }
    expect(systemBackedClaims(draft, failedClaim)).toEqual([])
    const systemEmpty: DraftReport = {
      summary: "",
      claims: [{ text: "x", citations: [{ tool_call_id: "c2", kind: "excerpt", ref: "whatever it is" }] }]
    }
    expect(systemBackedClaims(systemEmpty, evidencePassed)).toEqual([])
    // a negative claim never carries a release, even citing system evidence
    const negativeFound: DraftReport = { summary: "", claims: [{ ...draft.claims[2]!, negative: true }] }
    expect(systemBackedClaims(negativeFound, evidencePassed)).toEqual([])
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

const fullDraft = draft

describe("semanticGuard", () => {
  const draft: DraftReport = { ...fullDraft, claims: fullDraft.claims.slice(0, 2) }
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
            summaryVerdict: "SUPPORTED",
            usage,
            model: "judge-1"
          })
        }
      })
    )
    expect(r).toMatchObject({
      passed: true,
      verdict: "SUPPORTED",
      summaryVerdict: "SUPPORTED",
      usage,
      model: "judge-1"
    })
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
            summaryVerdict: "SUPPORTED" as const,
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

  it("judges the summary too: a summary the judge skipped or did not support fails the guard", async () => {
    const judge = (summaryVerdict?: "SUPPORTED" | "UNSUPPORTED") => () =>
      Effect.succeed({
        verdicts: [
          { claim_index: 0, verdict: "SUPPORTED" as const },
          { claim_index: 1, verdict: "SUPPORTED" as const }
        ],
        ...(summaryVerdict ? { summaryVerdict } : {}),
        usage: null,
        model: "m"
      })
    const skipped = await Effect.runPromise(
      semanticGuard({ question: "q", draft, evidence: [], judge: judge() })
    )
    expect(skipped).toMatchObject({ passed: false, verdict: "UNSUPPORTED", summaryVerdict: "UNSUPPORTED" })
    const refused = await Effect.runPromise(
      semanticGuard({ question: "q", draft, evidence: [], judge: judge("UNSUPPORTED") })
    )
    expect(refused.passed).toBe(false)
    // a blank summary needs no verdict
    const blank = await Effect.runPromise(
      semanticGuard({ question: "q", draft: { ...draft, summary: " " }, evidence: [], judge: judge() })
    )
    expect(blank).toMatchObject({ passed: true, summaryVerdict: null })
    const r = releaseDecision({ draft, evidence: evidencePassed, semantic: refused, checked })
    expect(r.decision).toBe("CANNOT_CONCLUDE")
    expect(r.missing).toContain("the summary: judged UNSUPPORTED")
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

import type { RunTrace, ToolInvocationEntry } from "@aiops-harness/audit"
import { describe, expect, it } from "vitest"
import {
  callAnchor,
  callState,
  citationTarget,
  evidenceAnchor,
  evidenceRefsOf,
  formatMs,
  formatTime,
  listHref,
  missingReasonsOf,
  OUTCOMES,
  outcomeFilter,
  outcomeOf,
  reportParts,
  rowIndexOfRef,
  waterfallOf
} from "../src/viewer/model.js"

const call = (over: Partial<ToolInvocationEntry>): ToolInvocationEntry => ({
  tool_call_id: "c-1",
  tool_name: "query_logs",
  step_id: "step-1",
  status: "READY",
  evidence_status: "EVIDENCE_FOUND",
  error_code: null,
  latency_ms: 10,
  request_bytes: 1,
  raw_bytes: 2,
  projection_bytes: 3,
  truncated: false,
  returned_count: 1,
  started_at: 1010,
  metadata: {},
  ...over
})

describe("viewer model", () => {
  it("outcomeOf: every status and release result, and each outcome has one audit filter", () => {
    expect(outcomeOf({ status: "RUNNING", release_result: null })).toBe("running")
    expect(outcomeOf({ status: null, release_result: null })).toBe("running")
    expect(outcomeOf({ status: "CANCELLED", release_result: "RUN_FAILED" })).toBe("cancelled")
    expect(outcomeOf({ status: "FAILED", release_result: null })).toBe("failed")
    expect(outcomeOf({ status: "FINISHED", release_result: "RUN_FAILED" })).toBe("failed")
    expect(outcomeOf({ status: "FINISHED", release_result: "DIAGNOSIS_REPORT" })).toBe("released")
    expect(outcomeOf({ status: "FINISHED", release_result: "NOT_A_DIAGNOSIS" })).toBe("refused")
    expect(outcomeOf({ status: "FINISHED", release_result: "CANNOT_CONCLUDE" })).toBe("cannot_conclude")
    for (const o of OUTCOMES) expect(Object.keys(outcomeFilter(o))).toHaveLength(1)
    expect(outcomeFilter("released")).toEqual({ releaseResult: "DIAGNOSIS_REPORT" })
    expect(outcomeFilter("cancelled")).toEqual({ status: "CANCELLED" })
  })

  it("listHref keeps only the set parameters, encoded", () => {
    expect(listHref({ outcome: null, session: null })).toBe("/")
    expect(listHref({ outcome: "refused", session: "s-1" }, "12.r-1")).toBe(
      "/?outcome=refused&session=s-1&before=12.r-1"
    )
  })

  it("callState: refusals (no record or a boundary rule) vs failures vs results", () => {
    expect(callState(call({}))).toBe("ok")
    expect(callState(call({ evidence_status: "NO_EVIDENCE" }))).toBe("no_evidence")
    expect(callState(call({ status: null, evidence_status: null, error_code: "TOOL_NOT_AUTHORIZED" }))).toBe(
      "refused"
    )
    expect(
      callState(call({ status: "ERROR", evidence_status: "ERROR", error_code: "BUDGET_EXHAUSTED" }))
    ).toBe("refused")
    expect(callState(call({ status: "ERROR", evidence_status: "ERROR", error_code: "BACKEND_ERROR" }))).toBe(
      "error"
    )
    expect(callState(call({ status: "PROJECTING", evidence_status: null }))).toBe("running")
  })

  it("reportParts: citation blocks of known calls become citations; the text is kept whole", () => {
    const content =
      "Summary.\n\nFindings:\n1. Pool exhausted. [c-1:pattern:p1; c-2:document:db.md#symptoms]\n2. Other [x-9:row:rows[1].a=b]\n3. [not a citation]"
    const parts = reportParts(content, new Set(["c-1", "c-2"]))
    const text = parts
      .map((p) => (p.type === "text" ? p.text : `[${p.citations.map((c) => c.text).join("; ")}]`))
      .join("")
    expect(text).toBe(content)
    const cited = parts.flatMap((p) => (p.type === "citations" ? p.citations : []))
    expect(cited).toEqual([
      { toolCallId: "c-1", kind: "pattern", ref: "p1", text: "c-1:pattern:p1" },
      { toolCallId: "c-2", kind: "document", ref: "db.md#symptoms", text: "c-2:document:db.md#symptoms" }
    ])
  })

  it("citationTarget: the evidence item when shown, else the call; rows by index", () => {
    const doc = { toolCallId: "c-2", kind: "document", ref: "db.md", text: "" }
    const shown = new Set([evidenceAnchor("c-2", "db.md"), evidenceAnchor("c-3", "rows[2]")])
    expect(citationTarget(doc, shown)).toEqual({ href: `#${evidenceAnchor("c-2", "db.md")}`, evidence: true })
    expect(citationTarget(doc, new Set())).toEqual({ href: `#${callAnchor("c-2")}`, evidence: false })
    expect(
      citationTarget({ toolCallId: "c-3", kind: "row", ref: "rows[2].status=paid", text: "" }, shown).evidence
    ).toBe(true)
    expect(
      citationTarget({ toolCallId: "c-3", kind: "excerpt", ref: "pool exhausted", text: "" }, shown)
    ).toEqual({
      href: "#call-c-3",
      evidence: false
    })
    expect(rowIndexOfRef("3")).toBe(3)
    expect(rowIndexOfRef("rows[4].a=b")).toBe(4)
    expect(rowIndexOfRef("status=paid")).toBeNull()
    expect(evidenceAnchor("c-1", "a")).not.toBe(evidenceAnchor("c-1", "b"))
    expect(evidenceAnchor("c-1", "a")).toMatch(/^ev-[0-9a-f]{16}$/)
  })

  it("evidenceRefsOf lists documents and patterns of an observation", () => {
    expect(
      evidenceRefsOf({ evidence: [{ document_id: "d1" }, { x: 1 }], patterns: [{ pattern_id: "p1" }] })
    ).toEqual([
      { kind: "document", ref: "d1", index: 0 },
      { kind: "pattern", ref: "p1", index: 0 }
    ])
    expect(evidenceRefsOf(null)).toEqual([])
  })

  it("waterfallOf: routing, steps with their calls, guards, release; a running run ends at now", () => {
    const trace = {
      run: { run_id: "r", session_id: "s", status: "RUNNING", started_at: 1000, finished_at: null },
      timeline: [
        { seq: 1, type: "RUN_STARTED", at: 1000, payload: {} },
        {
          seq: 2,
          type: "ROUTING_ATTEMPT",
          at: 1005,
          payload: { outcome: "MODEL_ERROR", error_reason: "TIMEOUT" }
        },
        { seq: 3, type: "ROUTING_DECISION", at: 1005, payload: { intent: "diagnosis", source: "fallback" } },
        { seq: 4, type: "STOP_REQUIRED", at: 1030, payload: { reason: "NO_GAIN" } }
      ],
      agent_steps: [
        {
          step_id: "step-1",
          step_index: 1,
          started_at: 1006,
          latency_ms: 4,
          outcome: "error",
          tool_call_ids: ["c-1"],
          usage_available: false,
          total_tokens: null,
          tool_invocations: [call({ status: "ERROR", evidence_status: "ERROR", error_code: "BACKEND_ERROR" })]
        }
      ],
      tool_invocations_without_step: [
        call({ tool_call_id: "c-2", step_id: null, status: null, error_code: "UNKNOWN_TOOL" })
      ],
      token_ledger: [],
      reconciliation: {}
    } as unknown as RunTrace
    const w = waterfallOf(trace, 5000)
    expect(w.t0).toBe(1000)
    expect(w.t1).toBe(5000)
    expect(w.rows.map((r) => [r.kind, r.state])).toEqual([
      ["routing", "error"],
      ["step", "error"],
      ["tool", "error"],
      ["tool", "refused"],
      ["stop", "warn"]
    ])
    expect(w.rows[2]!.nested).toBe(true)
    expect(w.rows[2]!.href).toBe("#call-c-1")
    expect(w.rows[0]!.detail).toContain("keyword fallback")
  })

  it("formats durations and times", () => {
    expect(formatMs(null)).toBe("—")
    expect(formatMs(12)).toBe("12 ms")
    expect(formatMs(1500)).toBe("1.50 s")
    expect(formatMs(12_500)).toBe("12.5 s")
    expect(formatMs(125_000)).toBe("2 min 5 s")
    expect(formatTime(Date.parse("2026-03-15T10:30:00.123Z"))).toBe("2026-03-15 10:30:00Z")
    expect(formatTime(null)).toBe("—")
  })

  it("missingReasonsOf reads the bounded answer's Missing list", () => {
    const content =
      "Cannot conclude: ...\n\nChecked:\n- query_logs ...\n\nMissing:\n- positive evidence for a cause\n- claim 2: judged UNSUPPORTED"
    expect(missingReasonsOf(content)).toEqual([
      "positive evidence for a cause",
      "claim 2: judged UNSUPPORTED"
    ])
    expect(missingReasonsOf("Report\n\nFindings:\n1. x")).toEqual([])
    expect(missingReasonsOf(null)).toEqual([])
  })
})

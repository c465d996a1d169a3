import { RecordingAuditSink } from "@aiops-harness/core/testing"
import { ScriptedChatModel, ScriptedTurn } from "../src/testing/index.js"
import { hasEventType, InMemoryCanonicalStore, type TimelineEvent } from "@aiops-harness/core"
import { redactText } from "@aiops-harness/projectors"
import { Effect, Layer } from "effect"
import { describe, expect, it } from "vitest"
import {
  type ChatModel,
  type DiagnosisOptions,
  type DiagnosisRequest,
  ModelError,
  OfflineRuleModel,
  type ProgressEvent,
  runDiagnosis
} from "../src/index.js"
import { DOCS, knowledgeTool, logLines, logsTool, patternIdOf, spying, text, toolCall } from "./helpers.js"

const SUCCESS_EVENTS = [
  "RUN_STARTED",
  "MODEL_TOKEN_USAGE",
  "ROUTING_ATTEMPT",
  "ROUTING_DECISION",
  "MODEL_TOKEN_USAGE",
  "AGENT_MODEL_STEP",
  "TOOL_INVOCATION",
  "MODEL_TOKEN_USAGE",
  "AGENT_MODEL_STEP",
  "EVIDENCE_GUARD_INITIAL",
  "MODEL_TOKEN_USAGE",
  "SEMANTIC_GUARD_ATTEMPT",
  "SEMANTIC_GUARD_DECISION",
  "RELEASE_DECISION",
  "RUN_FINISHED"
]

const run = (
  model: Layer.Layer<ChatModel>,
  request: Partial<DiagnosisRequest>,
  options: DiagnosisOptions,
  audit = new RecordingAuditSink(),
  store = InMemoryCanonicalStore.layer()
) =>
  Effect.runPromise(
    runDiagnosis(
      { sessionId: "session-1", question: "why is checkout returning 500s?", ...request },
      options
    ).pipe(Effect.provide(Layer.mergeAll(model, store, audit.layer)))
  ).then((result) => ({ result, audit }))

const finishedPayload = (events: ReadonlyArray<TimelineEvent>) => {
  const last = events.at(-1)
  expect(last?.type).toBe("RUN_FINISHED")
  if (!hasEventType(last, "RUN_FINISHED")) throw new Error(`last event: ${last?.type}`)
  return last.payload
}

describe("runDiagnosis with the offline rule model", () => {
  it("writes exactly the 15 reference events for a 2-turn single-tool diagnosis and reconciles tokens", async () => {
    const spy = spying(OfflineRuleModel.layer())
    const progress: ProgressEvent[] = []
    const { result, audit } = await run(
      spy.layer,
      {},
      { tools: [knowledgeTool(DOCS)], onProgress: (e) => progress.push(e) }
    )

    expect(audit.eventTypes()).toEqual(SUCCESS_EVENTS)
    expect(audit.events.map((e) => e.seq)).toEqual(SUCCESS_EVENTS.map((_, i) => i + 1))
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
    expect(result.intent).toBe("diagnosis")
    expect(result.report?.claims[0]?.citations[0]).toEqual({
      tool_call_id: "offline-call-1",
      kind: "document",
      ref: "runbooks/db-connection-pool-exhaustion.md"
    })
    expect(result.content).toContain("connection pool is exhausted")
    expect(result.evidenceGuard?.passed).toBe(true)
    expect(result.semanticGuard?.verdict).toBe("SUPPORTED")

    // agent steps and the tool call's step id
    expect(audit.steps.map((s) => [s.stepId, s.outcome, s.toolCallIds])).toEqual([
      ["step-1", "tool_calls", ["offline-call-1"]],
      ["step-2", "final", []]
    ])
    expect(audit.invocations.map((i) => [i.toolCallId, i.stepId, i.status, i.evidenceStatus])).toEqual([
      ["offline-call-1", "step-1", "READY", "EVIDENCE_FOUND"]
    ])

    // tokens reconcile: ledger sum = summary = RUN_FINISHED payload = finish record
    const ledger = audit.tokens.reduce((sum, t) => sum + (t.totalTokens ?? 0), 0)
    expect(audit.tokens.map((t) => t.component)).toEqual([
      "router",
      "agent_turn",
      "agent_turn",
      "semantic_guard"
    ])
    expect(audit.tokens.every((t) => t.usageAvailable)).toBe(true)
    expect(ledger).toBeGreaterThan(0)
    expect(result.summary.totalTokens).toBe(ledger)
    expect(finishedPayload(audit.events).run_total_tokens).toBe(ledger)
    expect(audit.finished[0]).toMatchObject({
      totalTokens: ledger,
      status: "FINISHED",
      releaseResult: "DIAGNOSIS_REPORT"
    })
    expect(audit.finished[0]?.expected).toEqual({
      timelineEvents: 15,
      agentSteps: 2,
      toolInvocations: 1,
      tokenUsages: 4
    })
    expect(result.summary.usageComplete).toBe(true)

    // the model only ever saw the boundary's observation
    const agentTurn2 = spy.requests.filter((r) => r.purpose === "agent")[1]!
    const toolMessage = agentTurn2.messages.find((m) => m.role === "tool")
    expect(toolMessage && JSON.parse(toolMessage.content)).toMatchObject({
      tool_call_id: "offline-call-1",
      tool: "lookup_knowledge",
      status: "READY",
      evidence_status: "EVIDENCE_FOUND"
    })
    const everything = JSON.stringify(spy.requests)
    expect(everything).not.toContain("raw-only-marker")
    expect(everything).not.toContain("0.93")
    expect(everything).not.toContain("budget")

    expect(progress.map((p) => p.type)).toEqual([
      "run_started",
      "routing",
      "agent_step",
      "tool_call",
      "agent_step",
      "evidence_guard",
      "semantic_guard",
      "release",
      "run_finished"
    ])
  })

  it("converges by the information-gain stop to CANNOT_CONCLUDE when nothing is found", async () => {
    const spy = spying(OfflineRuleModel.layer())
    const maxSteps = 6
    const { result, audit } = await run(
      spy.layer,
      { question: "why is inventory-service throwing timeouts?" },
      { tools: [knowledgeTool([]), logsTool([])], maxSteps, noGainLimit: 3 }
    )
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    expect(result.stopReason).toBe("NO_GAIN")
    expect(result.report).toBeNull()
    const types = audit.eventTypes()
    expect(types.filter((t) => t === "TOOL_INVOCATION")).toHaveLength(3)
    expect(types.filter((t) => t === "STOP_REQUIRED")).toHaveLength(1)
    expect(types.filter((t) => t === "AGENT_MODEL_STEP").length).toBeLessThanOrEqual(maxSteps)
    expect(types.slice(-3)).toEqual(["EVIDENCE_GUARD_INITIAL", "RELEASE_DECISION", "RUN_FINISHED"])
    expect(types).not.toContain("SEMANTIC_GUARD_ATTEMPT")
    const stop = audit.events.find((e) => e.type === "STOP_REQUIRED")
    expect(stop?.payload.reason).toBe("NO_GAIN")

    // the control message reached the model, after which no tools were offered
    const agentRequests = spy.requests.filter((r) => r.purpose === "agent")
    const last = agentRequests.at(-1)!
    const control = last.messages.find((m) => m.role === "user" && m.content.startsWith("STOP_REQUIRED:"))
    expect(control?.role === "user" && control.content).toContain("Scopes already checked")
    expect(last.tools).toBeUndefined()
    expect(JSON.stringify(spy.requests)).not.toMatch(/noGainLimit|consecutive|threshold/i)

    // the bounded answer says what was checked, with windows
    // every search came back empty: the bounded no-problem answer, not "cannot conclude"
    expect(result.content).toMatch(/^No problem found in the scopes checked/)
    expect(result.content).toContain("other services, log streams and times were not checked")
    expect(result.content).toContain("lookup_knowledge")
    expect(result.content).toContain("query_logs")
    expect(result.content).toMatch(/window \S+\.\.\S+/)
    expect(finishedPayload(audit.events)).toMatchObject({
      status: "FINISHED",
      release_result: "CANNOT_CONCLUDE"
    })
    expect(result.summary.totalTokens).toBe(audit.tokens.reduce((s, t) => s + (t.totalTokens ?? 0), 0))
  })

  it("answers NOT_A_DIAGNOSIS for other intents and still finishes the run", async () => {
    const { result, audit } = await run(
      OfflineRuleModel.layer(),
      { question: "hello there, who are you?" },
      { tools: [knowledgeTool(DOCS)] }
    )
    expect(result.releaseResult).toBe("NOT_A_DIAGNOSIS")
    expect(audit.eventTypes()).toEqual([
      "RUN_STARTED",
      "MODEL_TOKEN_USAGE",
      "ROUTING_ATTEMPT",
      "ROUTING_DECISION",
      "RELEASE_DECISION",
      "RUN_FINISHED"
    ])
  })
})

const SECRET_QUESTION = "why is checkout failing from 10.42.3.17? password=hunter2 AKIAIOSFODNN7EXAMPLE"
const QUESTION_SECRETS = ["10.42.3.17", "hunter2", "AKIAIOSFODNN7EXAMPLE"]
const PATTERNS = logLines({
  level: "ERROR",
  service: "checkout-service",
  count: 42,
  message: (i) => `HikariPool-1 - Connection is not available, request timed out after ${30_000 + i * 7}ms`
})
const HIKARI_ID = patternIdOf(PATTERNS)

const expectNoQuestionSecret = (what: string, text: string) => {
  for (const secret of QUESTION_SECRETS) expect(text.includes(secret), `${what} leaks ${secret}`).toBe(false)
}

describe("runDiagnosis redacts the question and the released content", () => {
  it("never lets the question's IP, password or access key reach the model, the audit or the answer", async () => {
    const spy = spying(OfflineRuleModel.layer())
    const { result, audit } = await run(
      spy.layer,
      { question: SECRET_QUESTION },
      { tools: [knowledgeTool(DOCS), logsTool(PATTERNS)] }
    )
    expect(result.intent).toBe("diagnosis")
    expect(["DIAGNOSIS_REPORT", "CANNOT_CONCLUDE"]).toContain(result.releaseResult)
    expect(result.content.length).toBeGreaterThan(0)

    // The audit `query` is the redacted question (placeholders, not the values).
    const redacted = redactText(SECRET_QUESTION)
    expect(redacted).toContain("<IP>")
    expect(redacted).toContain("<SECRET>")
    expect(audit.started.map((s) => s.query)).toEqual([redacted])
    expect(audit.finished[0]?.finalContent).toBe(result.content)

    // Router and agent were given the redacted question.
    const router = spy.requests.find((r) => r.purpose === "router")
    const agent = spy.requests.find((r) => r.purpose === "agent")
    expect(router?.messages.some((m) => m.role === "user" && m.content === redacted)).toBe(true)
    expect(agent?.messages.some((m) => m.role === "user" && m.content === redacted)).toBe(true)

    expectNoQuestionSecret("content", result.content)
    expectNoQuestionSecret("report", JSON.stringify(result.report))
    expectNoQuestionSecret("model messages", JSON.stringify(spy.requests))
    expectNoQuestionSecret("audit records", JSON.stringify(audit.writes))
  })

  it("redacts the released report text and stored finalContent even when the draft itself echoes a secret", async () => {
    const model = new ScriptedChatModel([
      diagnosisRoute,
      toolCall("call-1", "query_logs", { topic: "application", query: "level:ERROR" }),
      text(
        JSON.stringify({
          summary: "checkout from 10.42.3.17 fails (password=hunter2)",
          claims: [
            {
              text: "Connections time out for AKIAIOSFODNN7EXAMPLE at 10.42.3.17.",
              citations: [{ tool_call_id: "call-1", kind: "pattern", ref: HIKARI_ID }]
            }
          ],
          next_steps: ["rotate password=hunter2"]
        })
      ),
      text('{"verdicts":[{"claim_index":0,"verdict":"SUPPORTED"}],"summary_verdict":"SUPPORTED"}')
    ])
    const { result, audit } = await run(
      model.layer,
      { question: "why is checkout failing?" },
      { tools: [logsTool(PATTERNS)] }
    )
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
    expect(result.content).toContain("<IP>")
    expect(result.content).toContain("<SECRET>")
    expect(audit.finished[0]?.finalContent).toBe(result.content)
    expect(result.report?.summary).toBe(redactText("checkout from 10.42.3.17 fails (password=hunter2)"))
    // citations are released as checked
    expect(result.report?.claims[0]?.citations).toEqual([
      { tool_call_id: "call-1", kind: "pattern", ref: HIKARI_ID }
    ])
    expectNoQuestionSecret("content", result.content)
    expectNoQuestionSecret("report", JSON.stringify(result.report))
    expectNoQuestionSecret("finish record", JSON.stringify(audit.finished))
  })

  it("audits the redacted question when the model is unavailable", async () => {
    const model = new ScriptedChatModel([
      diagnosisRoute,
      ScriptedTurn.fail(new ModelError({ reason: "NETWORK", attempts: 1 }))
    ])
    const { result, audit } = await run(
      model.layer,
      { question: SECRET_QUESTION },
      { tools: [logsTool(PATTERNS)] }
    )
    expect(result.releaseResult).toBe("RUN_FAILED")
    expect(audit.started[0]?.query).toBe(redactText(SECRET_QUESTION))
    expectNoQuestionSecret("model messages", JSON.stringify(model.requests))
    expectNoQuestionSecret("audit records", JSON.stringify(audit.writes))
  })
})

const diagnosisRoute = text('{"intent":"diagnosis"}')
const citing = (toolCallId: string) =>
  text(
    JSON.stringify({
      summary: "pool exhausted",
      claims: [
        {
          text: "The pool is exhausted.",
          citations: [
            { tool_call_id: toolCallId, kind: "document", ref: "runbooks/db-connection-pool-exhaustion.md" }
          ]
        }
      ]
    })
  )

const timeout = ScriptedTurn.fail(new ModelError({ reason: "TIMEOUT", attempts: 3 }))

/** Timeline seqs are 1..n in order; every MODEL_TOKEN_USAGE is directly followed by its decision event. */
const expectValidTimeline = (events: ReadonlyArray<TimelineEvent>) => {
  expect(events.map((e) => e.seq)).toEqual(events.map((_, i) => i + 1))
  expect(events[0]?.type).toBe("RUN_STARTED")
  expect(events.filter((e) => e.type === "RUN_FINISHED")).toHaveLength(1)
  expect(events.at(-1)?.type).toBe("RUN_FINISHED")
  events.forEach((e, i) => {
    if (e.type !== "MODEL_TOKEN_USAGE") return
    const next = events[i + 1]?.type
    const expected = {
      router: "ROUTING_ATTEMPT",
      agent_turn: "AGENT_MODEL_STEP",
      semantic_guard: "SEMANTIC_GUARD_ATTEMPT"
    }[e.payload.component as string]
    expect(next).toBe(expected)
  })
}

const expectUnknownUsage = (
  audit: RecordingAuditSink,
  result: { summary: { usageComplete: boolean; tokenUsages: number } },
  component: string
) => {
  const failed = audit.tokens.filter((t) => !t.usageAvailable)
  expect(failed).toHaveLength(1)
  expect(failed[0]).toMatchObject({
    component,
    usageAvailable: false,
    promptTokens: null,
    completionTokens: null,
    totalTokens: null
  })
  expect(result.summary.usageComplete).toBe(false)
  expect(result.summary.tokenUsages).toBe(audit.tokens.length)
  const finished = finishedPayload(audit.events)
  expect(finished.usage_complete).toBe(false)
  expect(audit.finished[0]?.usageComplete).toBe(false)
  expect(audit.finished[0]?.expected.tokenUsages).toBe(audit.tokens.length)
}

describe("runDiagnosis audits failed model calls", () => {
  it("router: a ledger entry with unknown usage, the error reason, and a visible fallback", async () => {
    const model = new ScriptedChatModel([
      timeout,
      toolCall("call-1", "lookup_knowledge", { query: "checkout 500" }),
      citing("call-1"),
      text('{"verdicts":[{"claim_index":0,"verdict":"SUPPORTED"}],"summary_verdict":"SUPPORTED"}')
    ])
    const progress: ProgressEvent[] = []
    const { result, audit } = await run(
      model.layer,
      {},
      { tools: [knowledgeTool(DOCS)], onProgress: (e) => progress.push(e) }
    )
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
    expect(audit.eventTypes()).toEqual(SUCCESS_EVENTS)
    expectValidTimeline(audit.events)
    expectUnknownUsage(audit, result, "router")
    expect(audit.events.find((e) => e.type === "ROUTING_ATTEMPT")?.payload).toMatchObject({
      outcome: "MODEL_ERROR",
      error_reason: "TIMEOUT"
    })
    expect(audit.events.find((e) => e.type === "MODEL_TOKEN_USAGE")?.payload).toMatchObject({
      component: "router",
      usage_available: false,
      total_tokens: null
    })
    expect(progress.find((p) => p.type === "routing")).toEqual({
      type: "routing",
      intent: "diagnosis",
      source: "fallback"
    })
    // total is the sum of the known entries (the unknown one is not counted as 0 usage)
    const known = audit.tokens.reduce((sum, t) => sum + (t.totalTokens ?? 0), 0)
    expect(result.summary.totalTokens).toBe(known)
  })

  it("router answering: the routing progress event says source model", async () => {
    const progress: ProgressEvent[] = []
    await run(
      OfflineRuleModel.layer(),
      { question: "hello" },
      { tools: [], onProgress: (e) => progress.push(e) }
    )
    expect(progress.find((p) => p.type === "routing")).toEqual({
      type: "routing",
      intent: "other",
      source: "model"
    })
  })

  it.each([
    ["on the first turn", 1],
    ["after a tool call", 2]
  ])(
    "agent turn %s: an error step with its reason, a ledger entry with unknown usage, RUN_FINISHED",
    async (_, failingStep) => {
      const model = new ScriptedChatModel([
        diagnosisRoute,
        ...(failingStep === 2 ? [toolCall("call-1", "lookup_knowledge", { query: "checkout 500" })] : []),
        timeout
      ])
      const progress: ProgressEvent[] = []
      const { result, audit } = await run(
        model.layer,
        {},
        { tools: [knowledgeTool(DOCS)], onProgress: (e) => progress.push(e) }
      )
      expect(result.releaseResult).toBe("RUN_FAILED")
      expectValidTimeline(audit.events)
      expectUnknownUsage(audit, result, "agent_turn")
      expect(audit.tokens.at(-1)).toMatchObject({ component: "agent_turn", componentIndex: failingStep })
      expect(audit.steps.at(-1)).toMatchObject({
        stepId: `step-${failingStep}`,
        stepIndex: failingStep,
        outcome: "error",
        toolCallIds: [],
        usageAvailable: false,
        totalTokens: null
      })
      expect(audit.steps).toHaveLength(failingStep)
      expect(result.summary.agentSteps).toBe(failingStep)
      expect(audit.finished[0]).toMatchObject({ status: "FAILED", releaseResult: "RUN_FAILED" })
      expect(audit.finished[0]?.expected.agentSteps).toBe(failingStep)
      const step = audit.events.filter((e) => e.type === "AGENT_MODEL_STEP").at(-1)
      expect(step?.payload).toMatchObject({
        step_id: `step-${failingStep}`,
        step_index: failingStep,
        outcome: "error",
        error_reason: "TIMEOUT",
        usage_available: false
      })
      expect(audit.eventTypes().slice(-3)).toEqual(["MODEL_TOKEN_USAGE", "AGENT_MODEL_STEP", "RUN_FINISHED"])
      expect(finishedPayload(audit.events)).toMatchObject({ status: "FAILED" })
      expect(progress.at(-1)).toEqual({ type: "run_finished", status: "FAILED" })
    }
  )

  it("semantic guard: SEMANTIC_GUARD_ATTEMPT with the error reason, a ledger entry with unknown usage, fails closed", async () => {
    const model = new ScriptedChatModel([
      diagnosisRoute,
      toolCall("call-1", "lookup_knowledge", { query: "checkout 500" }),
      citing("call-1"),
      ScriptedTurn.fail(new ModelError({ reason: "HTTP_STATUS", status: 502, attempts: 3 }))
    ])
    const { result, audit } = await run(model.layer, {}, { tools: [knowledgeTool(DOCS)] })
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    expect(result.semanticGuard).toMatchObject({ verdict: "JUDGE_FAILED", errorTag: "ModelError" })
    expect(audit.eventTypes()).toEqual(SUCCESS_EVENTS)
    expectValidTimeline(audit.events)
    expectUnknownUsage(audit, result, "semantic_guard")
    expect(audit.events.find((e) => e.type === "SEMANTIC_GUARD_ATTEMPT")?.payload).toMatchObject({
      outcome: "ModelError",
      error_reason: "HTTP_STATUS"
    })
    expect(audit.steps.map((s) => s.outcome)).toEqual(["tool_calls", "final"])
    expect(finishedPayload(audit.events)).toMatchObject({ status: "FINISHED" })
  })
})

describe("runDiagnosis with scripted models", () => {
  it("refuses a draft that cites a made-up toolCallId (EvidenceGuard)", async () => {
    const model = new ScriptedChatModel([
      diagnosisRoute,
      toolCall("call-1", "lookup_knowledge", { query: "checkout 500" }),
      citing("call-999")
    ])
    const { result, audit } = await run(model.layer, {}, { tools: [knowledgeTool(DOCS)] })
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    expect(result.evidenceGuard?.failures.map((f) => f.reason)).toEqual(["INVOCATION_NOT_FOUND"])
    const guard = audit.events.find((e) => e.type === "EVIDENCE_GUARD_INITIAL")
    expect(guard?.payload).toMatchObject({
      passed: false,
      failures: [{ claim_index: 0, tool_call_id: "call-999", reason: "INVOCATION_NOT_FOUND" }]
    })
    expect(audit.eventTypes()).not.toContain("SEMANTIC_GUARD_ATTEMPT")
    expect(audit.eventTypes().at(-1)).toBe("RUN_FINISHED")
    expect(model.requests).toHaveLength(3)
  })

  it("refuses a real toolCallId from another run", async () => {
    const store = Layer.succeed(
      (await import("@aiops-harness/core")).CanonicalInvocationStore,
      await Effect.runPromise(InMemoryCanonicalStore.make())
    )
    const first = new ScriptedChatModel([
      diagnosisRoute,
      toolCall("call-1", "lookup_knowledge", { query: "checkout 500" }),
      citing("call-1"),
      text('{"verdicts":[{"claim_index":0,"verdict":"SUPPORTED"}],"summary_verdict":"SUPPORTED"}')
    ])
    const a = await run(
      first.layer,
      { runId: "run-a" },
      { tools: [knowledgeTool(DOCS)] },
      new RecordingAuditSink(),
      store
    )
    expect(a.result.releaseResult).toBe("DIAGNOSIS_REPORT")
    const second = new ScriptedChatModel([diagnosisRoute, citing("call-1")])
    const b = await run(
      second.layer,
      { runId: "run-b" },
      { tools: [knowledgeTool(DOCS)] },
      new RecordingAuditSink(),
      store
    )
    expect(b.result.releaseResult).toBe("CANNOT_CONCLUDE")
    expect(b.result.evidenceGuard?.failures.map((f) => f.reason)).toEqual(["INVOCATION_NOT_FOUND"])
  })

  it("refuses when the semantic judge does not support the claims", async () => {
    const model = new ScriptedChatModel([
      diagnosisRoute,
      toolCall("call-1", "lookup_knowledge", { query: "checkout 500" }),
      citing("call-1"),
      text('{"verdicts":[{"claim_index":0,"verdict":"PARTIALLY_SUPPORTED"}],"summary_verdict":"SUPPORTED"}')
    ])
    const { result, audit } = await run(model.layer, {}, { tools: [knowledgeTool(DOCS)] })
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    expect(result.semanticGuard?.verdict).toBe("PARTIALLY_SUPPORTED")
    expect(audit.eventTypes()).toEqual(SUCCESS_EVENTS)
  })

  it("fails the semantic guard closed on an unparseable judge answer, keeping its ledger entry", async () => {
    const model = new ScriptedChatModel([
      diagnosisRoute,
      toolCall("call-1", "lookup_knowledge", { query: "checkout 500" }),
      citing("call-1"),
      text("looks fine to me")
    ])
    const { result, audit } = await run(model.layer, {}, { tools: [knowledgeTool(DOCS)] })
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    expect(result.semanticGuard).toMatchObject({ verdict: "JUDGE_FAILED", errorTag: "JudgeAnswerInvalid" })
    expect(audit.eventTypes()).toEqual(SUCCESS_EVENTS)
    expect(audit.events.find((e) => e.type === "SEMANTIC_GUARD_ATTEMPT")?.payload.outcome).toBe(
      "JudgeAnswerInvalid"
    )
  })

  it("stops on a repeated request and never executes calls made after STOP_REQUIRED", async () => {
    const same = { query: "checkout 500" }
    const model = new ScriptedChatModel([
      diagnosisRoute,
      toolCall("call-1", "lookup_knowledge", same),
      toolCall("call-2", "lookup_knowledge", same),
      toolCall("call-3", "lookup_knowledge", { query: "other" }),
      text(JSON.stringify({ summary: "nothing", claims: [] }))
    ])
    const { result, audit } = await run(model.layer, {}, { tools: [knowledgeTool(DOCS)], maxSteps: 6 })
    expect(result.stopReason).toBe("DUPLICATE_REQUEST")
    expect(audit.invocations.map((i) => i.toolCallId)).toEqual(["call-1", "call-2"])
    expect(model.requests[3]?.tools).toBeUndefined()
    const refused = model.requests[4]?.messages.find((m) => m.role === "tool" && m.toolCallId === "call-3")
    expect(refused?.role === "tool" && JSON.parse(refused.content)).toMatchObject({
      error_code: "STOP_REQUIRED"
    })
    expect(audit.steps.map((s) => s.outcome)).toEqual([
      "tool_calls",
      "tool_calls",
      "tool_calls_refused",
      "final"
    ])
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    expect(audit.eventTypes().at(-1)).toBe("RUN_FINISHED")
  })

  it("converges within maxSteps when the model never stops calling tools", async () => {
    // Every agent turn calls a tool: 4 turns (the budget), then the loop must stop.
    const calls = Array.from({ length: 4 }, (_, i) =>
      toolCall(`call-${i}`, "lookup_knowledge", { query: `q${i}` })
    )
    const model = new ScriptedChatModel([diagnosisRoute, ...calls])
    const { result, audit } = await run(model.layer, {}, { tools: [knowledgeTool(DOCS)], maxSteps: 4 })
    expect(audit.steps).toHaveLength(4)
    expect(result.stopReason).toBe("STEP_BUDGET")
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    expect(audit.invocations).toHaveLength(3)
    expect(audit.eventTypes().at(-1)).toBe("RUN_FINISHED")
  })

  it("stops offering tools when the tool budget is spent", async () => {
    const model = new ScriptedChatModel([
      diagnosisRoute,
      toolCall("call-1", "lookup_knowledge", { query: "a" }),
      citing("call-1"),
      text('{"verdicts":[{"claim_index":0,"verdict":"SUPPORTED"}],"summary_verdict":"SUPPORTED"}')
    ])
    const { result } = await run(
      model.layer,
      {},
      { tools: [knowledgeTool(DOCS)], budget: { maxToolCalls: 1 } }
    )
    expect(result.stopReason).toBe("TOOL_BUDGET")
    expect(model.requests[2]?.tools).toBeUndefined()
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
  })

  it("asks once more for a malformed report, then gives the bounded answer", async () => {
    const model = new ScriptedChatModel([diagnosisRoute, text("it is the database"), text("still prose")])
    const { result, audit } = await run(model.layer, {}, { tools: [knowledgeTool(DOCS)] })
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    expect(model.requests).toHaveLength(3)
    expect(audit.eventTypes().slice(-2)).toEqual(["RELEASE_DECISION", "RUN_FINISHED"])
    expect(audit.eventTypes()).not.toContain("EVIDENCE_GUARD_INITIAL")
  })

  it("ends with RUN_FINISHED (FAILED) when the model fails mid-run", async () => {
    const model = new ScriptedChatModel([
      diagnosisRoute,
      toolCall("call-1", "lookup_knowledge", { query: "a" }),
      ScriptedTurn.fail(new ModelError({ reason: "HTTP_STATUS", status: 503, attempts: 3 }))
    ])
    const { result, audit } = await run(model.layer, {}, { tools: [knowledgeTool(DOCS)] })
    expect(result.releaseResult).toBe("RUN_FAILED")
    expect(result.checked).toHaveLength(1)
    expect(finishedPayload(audit.events)).toMatchObject({ status: "FAILED" })
    expect(audit.finished[0]).toMatchObject({ status: "FAILED", releaseResult: "RUN_FAILED" })
    expect(audit.eventTypes().filter((t) => t === "RUN_FINISHED")).toHaveLength(1)
  })

  it("ends with RUN_FINISHED (FAILED) on a defect", async () => {
    const model = new ScriptedChatModel([
      diagnosisRoute,
      ScriptedTurn.effect(() => Effect.die(new Error("bug")))
    ])
    const { result, audit } = await run(model.layer, {}, { tools: [knowledgeTool(DOCS)] })
    expect(result.releaseResult).toBe("RUN_FAILED")
    expect(finishedPayload(audit.events)).toMatchObject({ status: "FAILED" })
  })

  it("falls back to keyword routing when the router model fails", async () => {
    const model = new ScriptedChatModel([
      ScriptedTurn.fail(new ModelError({ reason: "TIMEOUT", attempts: 1 }))
    ])
    const { result, audit } = await run(model.layer, { question: "hello" }, { tools: [] })
    expect(result.releaseResult).toBe("NOT_A_DIAGNOSIS")
    expect(audit.eventTypes()).toEqual([
      "RUN_STARTED",
      "MODEL_TOKEN_USAGE",
      "ROUTING_ATTEMPT",
      "ROUTING_DECISION",
      "RELEASE_DECISION",
      "RUN_FINISHED"
    ])
    expect(audit.events[3]?.payload).toMatchObject({ intent: "other", source: "fallback" })
  })

  it("ends with RUN_FINISHED (CANCELLED) when interrupted", async () => {
    const audit = new RecordingAuditSink()
    const model = new ScriptedChatModel([diagnosisRoute, ScriptedTurn.hang()])
    const exit = await Effect.runPromiseExit(
      runDiagnosis({ sessionId: "s-1", question: "why 500?" }, { tools: [knowledgeTool(DOCS)] }).pipe(
        Effect.provide(Layer.mergeAll(model.layer, InMemoryCanonicalStore.layer(), audit.layer)),
        Effect.timeout(50)
      )
    )
    expect(exit._tag).toBe("Failure")
    expect(audit.events.at(-1)?.payload).toMatchObject({ status: "CANCELLED" })
  })

  it("rejects invalid ids before starting a run", async () => {
    const audit = new RecordingAuditSink()
    const exit = await Effect.runPromiseExit(
      runDiagnosis({ sessionId: "bad id:{x}", question: "why?" }, { tools: [] }).pipe(
        Effect.provide(Layer.mergeAll(OfflineRuleModel.layer(), InMemoryCanonicalStore.layer(), audit.layer))
      )
    )
    expect(exit._tag).toBe("Failure")
    expect(JSON.stringify(exit)).toContain("InvalidId")
    expect(audit.events).toEqual([])
  })
})

describe("runDiagnosis with the evidence store down", () => {
  it("records store_available: false and tells the user the evidence store is unavailable", async () => {
    const { CanonicalInvocationStore, StoreError } = await import("@aiops-harness/core")
    const down = (operation: "create" | "transition" | "get") =>
      Effect.fail(new StoreError({ operation, reason: "UNAVAILABLE" }))
    const store = Layer.succeed(CanonicalInvocationStore, {
      create: () => down("create"),
      transition: () => down("transition"),
      get: () => down("get")
    })
    const model = new ScriptedChatModel([
      diagnosisRoute,
      toolCall("call-1", "lookup_knowledge", { query: "checkout 500" }),
      toolCall("call-2", "lookup_knowledge", { query: "checkout errors" }),
      toolCall("call-3", "lookup_knowledge", { query: "payment timeout" }),
      // A draft whose claim cites nothing: the guard never reads the store itself.
      text(JSON.stringify({ summary: "unknown", claims: [{ text: "Something failed.", citations: [] }] }))
    ])
    const { result, audit } = await run(
      model.layer,
      {},
      { tools: [knowledgeTool(DOCS)] },
      new RecordingAuditSink(),
      store
    )
    expect(result.checked.every((c) => c.errorCode === "STORE_ERROR")).toBe(true)
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    const guard = audit.events.find((e) => e.type === "EVIDENCE_GUARD_INITIAL")
    expect(guard?.payload).toMatchObject({ passed: false, store_available: false })
    const release = audit.events.find((e) => e.type === "RELEASE_DECISION")
    expect(release?.payload).toMatchObject({ store_available: false })
    expect(result.content).toContain("the evidence store is unavailable")
    expect(result.content).not.toContain("stopped early")
  })
})

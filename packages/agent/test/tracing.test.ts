import { RecordingAuditSink } from "@aiops-harness/core/testing"
import { ScriptedChatModel, ScriptedTurn } from "../src/testing/index.js"
import { InMemoryCanonicalStore } from "@aiops-harness/core"
import { Effect, Layer, Tracer } from "effect"
import { describe, expect, it } from "vitest"
import {
  type ChatModel,
  ModelError,
  OfflineRuleModel,
  type ProgressEvent,
  runDiagnosis
} from "../src/index.js"
import { DOCS, knowledgeTool, text, toolCall } from "./helpers.js"

const SECRET = "provider-said-sk-live-0123456789"

/** Runs one diagnosis under a tracer that keeps every span. */
const traced = async (model: Layer.Layer<ChatModel>, question = "why is checkout returning 500s?") => {
  const spans: Tracer.NativeSpan[] = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  const progress: ProgressEvent[] = []
  const audit = new RecordingAuditSink()
  const result = await Effect.runPromise(
    runDiagnosis(
      { sessionId: "session-t", runId: "run-t", question },
      { tools: [knowledgeTool(DOCS)], onProgress: (e) => progress.push(e) }
    ).pipe(
      Effect.provide(Layer.mergeAll(model, InMemoryCanonicalStore.layer(), audit.layer)),
      Effect.provideService(Tracer.Tracer, tracer)
    )
  )
  const parentOf = (span: Tracer.NativeSpan) =>
    span.parent._tag === "Some"
      ? spans.find((s) => s.spanId === (span.parent as any).value.spanId)
      : undefined
  return { result, spans, progress, audit, parentOf }
}

const attrs = (span: Tracer.NativeSpan | undefined) => Object.fromEntries(span?.attributes ?? [])

describe("runDiagnosis spans", () => {
  it("the offline run: invoke_agent > route_question > chat, chat per turn, execute_tool, guards, release", async () => {
    const { result, spans, parentOf, audit } = await traced(OfflineRuleModel.layer())
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
    const root = spans.find((s) => s.name === "invoke_agent aiops-diagnosis")!
    expect(root.parent._tag).toBe("None")
    expect(attrs(root)).toMatchObject({
      "gen_ai.conversation.id": "session-t",
      "aiops.run.id": "run-t",
      "aiops.release_result": "DIAGNOSIS_REPORT",
      "aiops.usage.complete": true
    })
    // In start order, each with its parent.
    const names = spans.filter((s) => s !== root).map((s) => [s.name, parentOf(s)?.name])
    expect(names).toEqual([
      ["route_question", "invoke_agent aiops-diagnosis"],
      ["chat offline-rule-v1", "route_question"],
      ["chat offline-rule-v1", "invoke_agent aiops-diagnosis"],
      ["execute_tool lookup_knowledge", "invoke_agent aiops-diagnosis"],
      ["chat offline-rule-v1", "invoke_agent aiops-diagnosis"],
      ["guard evidence_guard", "invoke_agent aiops-diagnosis"],
      ["guard semantic_guard", "invoke_agent aiops-diagnosis"],
      ["chat offline-rule-v1", "guard semantic_guard"],
      ["release_decision", "invoke_agent aiops-diagnosis"]
    ])
    // The run's token sums are the ledger's.
    const input = audit.tokens.reduce((n, t) => n + (t.promptTokens ?? 0), 0)
    const output = audit.tokens.reduce((n, t) => n + (t.completionTokens ?? 0), 0)
    expect(attrs(root)["gen_ai.usage.input_tokens"]).toBe(input)
    expect(attrs(root)["gen_ai.usage.output_tokens"]).toBe(output)
    for (const s of spans) expect(s.status._tag).toBe("Ended")
  })

  it("a failed router call: chat span error.type = reason, status message without the provider's detail; the run still ends", async () => {
    const model = new ScriptedChatModel([
      ScriptedTurn.fail(new ModelError({ reason: "HTTP_STATUS", status: 500, attempts: 1, detail: SECRET })),
      toolCall("call-1", "lookup_knowledge", { query: "checkout 500" }),
      text("not a report"),
      text("still not a report")
    ])
    const { result, spans } = await traced(model.layer)
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    // No `info`: spans are named `chat`, without provider attributes.
    const chats = spans.filter((s) => s.name === "chat")
    expect(chats.length).toBe(4)
    const router = chats[0]!
    expect(attrs(router)).toMatchObject({ "error.type": "HTTP_STATUS", "aiops.chat.purpose": "router" })
    expect(attrs(router)["gen_ai.provider.name"]).toBeUndefined()
    const status = router.status
    expect(status._tag).toBe("Ended")
    if (status._tag === "Ended") {
      expect(status.exit._tag).toBe("Failure")
      expect(JSON.stringify(status.exit)).not.toContain(SECRET)
      expect(String(status.exit)).not.toContain(SECRET)
    }
    const root = spans.find((s) => s.name.startsWith("invoke_agent"))!
    expect(attrs(root)["aiops.usage.complete"]).toBe(false)
    expect(attrs(root)["gen_ai.usage.input_tokens"]).toBeUndefined()
    for (const s of spans) expect(JSON.stringify(attrs(s))).not.toContain(SECRET)
  })

  it("the tool_call progress event carries the redacted arguments and the observation the model got", async () => {
    const { progress } = await traced(OfflineRuleModel.layer())
    const call = progress.find((p) => p.type === "tool_call")
    expect(call?.type).toBe("tool_call")
    if (call?.type !== "tool_call") return
    expect(JSON.parse(call.arguments)).toMatchObject({ query: expect.any(String) })
    expect(call.observation.tool_call_id).toBe(call.tool_call_id)
  })
})

import { Effect, Tracer } from "effect"
import { describe, expect, it } from "vitest"
import { CaptureTraceContent } from "../src/index.js"
import { call, failingBackendTool, knowledgeTool, RUN_ID, SECRET, setup } from "./helpers.js"

/** A tracer that keeps every span it starts (Effect's native spans, attributes readable). */
const recordingTracer = () => {
  const spans: Tracer.NativeSpan[] = []
  const tracer = Tracer.make({
    span: (options) => {
      const span = new Tracer.NativeSpan(options)
      spans.push(span)
      return span
    }
  })
  return { spans, tracer }
}

const attributesOf = (span: Tracer.NativeSpan) => Object.fromEntries(span.attributes)

describe("ToolBoundary spans (execute_tool, GenAI semconv)", () => {
  it("a READY call: name, identity, statuses and sizes; no observation by default", async () => {
    const { spans, tracer } = recordingTracer()
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        const { boundary } = yield* setup([knowledgeTool()])
        return yield* boundary.call({ ...call("call-1"), stepId: "step-1" })
      }).pipe(Effect.provideService(Tracer.Tracer, tracer))
    )
    const tool = spans.filter((s) => s.name.startsWith("execute_tool"))
    expect(tool.map((s) => s.name)).toEqual(["execute_tool lookup_knowledge"])
    const span = tool[0]!
    expect(span.kind).toBe("internal")
    expect(span.status._tag).toBe("Ended")
    expect(attributesOf(span)).toMatchObject({
      "gen_ai.operation.name": "execute_tool",
      "gen_ai.tool.name": "lookup_knowledge",
      "gen_ai.tool.type": "function",
      "gen_ai.tool.call.id": "call-1",
      "aiops.run.id": RUN_ID,
      "aiops.step.id": "step-1",
      "aiops.tool.invocation_status": "READY",
      "aiops.tool.evidence_status": "EVIDENCE_FOUND",
      "aiops.tool.request_bytes": outcome.control.requestBytes,
      "aiops.tool.raw_bytes": outcome.control.rawBytes,
      "aiops.tool.projection_bytes": outcome.control.projectionBytes,
      "aiops.tool.returned_count": 1,
      "aiops.tool.truncated": false
    })
    expect(span.attributes.has("error.type")).toBe(false)
    expect(span.attributes.has("gen_ai.tool.call.result")).toBe(false)
  })

  it("a failing backend: error.type = the stable error code, never the backend's text", async () => {
    const { spans, tracer } = recordingTracer()
    await Effect.runPromise(
      Effect.gen(function* () {
        const { boundary } = yield* setup([failingBackendTool()])
        return yield* boundary.call(call("call-2", { query: "x" }, "query_logs"))
      }).pipe(Effect.provideService(Tracer.Tracer, tracer))
    )
    const span = spans.find((s) => s.name === "execute_tool query_logs")!
    expect(attributesOf(span)).toMatchObject({
      "aiops.tool.invocation_status": "ERROR",
      "aiops.tool.evidence_status": "ERROR",
      "aiops.tool.error_code": "BACKEND_ERROR",
      "error.type": "BACKEND_ERROR"
    })
    expect(JSON.stringify(attributesOf(span))).not.toContain(SECRET)
  })

  it("a malformed toolCallId is not exported as an id; a refused call still has its span", async () => {
    const { spans, tracer } = recordingTracer()
    await Effect.runPromise(
      Effect.gen(function* () {
        const { boundary } = yield* setup([knowledgeTool()])
        return yield* boundary.call({ ...call("x"), toolCallId: `bad id ${SECRET}` })
      }).pipe(Effect.provideService(Tracer.Tracer, tracer))
    )
    const span = spans.find((s) => s.name === "execute_tool lookup_knowledge")!
    expect(span.attributes.has("gen_ai.tool.call.id")).toBe(false)
    expect(span.attributes.get("error.type")).toBe("INVALID_TOOL_CALL_ID")
    expect(JSON.stringify(attributesOf(span))).not.toContain(SECRET)
  })

  it("CaptureTraceContent attaches the agent observation (the bounded projection), nothing raw", async () => {
    const { spans, tracer } = recordingTracer()
    const outcome = await Effect.runPromise(
      Effect.gen(function* () {
        const { boundary } = yield* setup([knowledgeTool()])
        return yield* boundary.call(call("call-3"))
      }).pipe(Effect.provideService(Tracer.Tracer, tracer), Effect.provideService(CaptureTraceContent, true))
    )
    const span = spans.find((s) => s.name === "execute_tool lookup_knowledge")!
    expect(JSON.parse(span.attributes.get("gen_ai.tool.call.result") as string)).toEqual(outcome.observation)
  })
})

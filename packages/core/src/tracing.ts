import { Context, Effect } from "effect"
import type { ToolCallOutcome } from "./boundary.js"
import { isValidId } from "./ids.js"
import type { ToolCallEnvelope } from "./tool.js"

/**
 * OpenTelemetry GenAI semantic conventions (v1.38.0, Development status) attribute names used by
 * the harness's spans, plus the harness's own `aiops.*` attributes. Spans go through Effect's
 * tracer: with no tracer configured they cost a little and are exported nowhere.
 */
export const GenAiAttributes = {
  operationName: "gen_ai.operation.name",
  providerName: "gen_ai.provider.name",
  requestModel: "gen_ai.request.model",
  responseModel: "gen_ai.response.model",
  inputTokens: "gen_ai.usage.input_tokens",
  outputTokens: "gen_ai.usage.output_tokens",
  conversationId: "gen_ai.conversation.id",
  agentName: "gen_ai.agent.name",
  toolName: "gen_ai.tool.name",
  toolCallId: "gen_ai.tool.call.id",
  toolType: "gen_ai.tool.type",
  toolCallResult: "gen_ai.tool.call.result",
  outputMessages: "gen_ai.output.messages",
  errorType: "error.type"
} as const

/** The harness's own span attributes (ids shared with the timeline and the audit). */
export const HarnessAttributes = {
  runId: "aiops.run.id",
  sessionId: "aiops.session.id",
  stepId: "aiops.step.id",
  invocationStatus: "aiops.tool.invocation_status",
  evidenceStatus: "aiops.tool.evidence_status",
  errorCode: "aiops.tool.error_code",
  requestBytes: "aiops.tool.request_bytes",
  rawBytes: "aiops.tool.raw_bytes",
  projectionBytes: "aiops.tool.projection_bytes",
  returnedCount: "aiops.tool.returned_count",
  truncated: "aiops.tool.truncated"
} as const

/**
 * Opt-in: attach redacted content (the agent observation of each tool call, the released
 * report) to spans. Off by default: spans carry ids, statuses, counts and sizes only — never a
 * prompt, a raw response or the question.
 */
export const CaptureTraceContent = Context.Reference<boolean>("@aiops-harness/core/CaptureTraceContent", {
  defaultValue: () => false
})

/** Span options shared by the harness: no stack-trace capture (file paths are noise in a span). */
export const spanOptions = (attributes: Record<string, unknown>, kind: "internal" | "client" = "internal") =>
  ({ attributes, kind, captureStackTrace: false }) as const

/**
 * Wraps a ToolBoundary `call` in an `execute_tool {tool}` span (GenAI semconv) with the call's
 * identity, statuses, error code and byte counts; with `CaptureTraceContent` also the agent
 * observation (already projected and redacted). The outcome is returned unchanged.
 */
export const traceToolCall =
  (call: (envelope: ToolCallEnvelope) => Effect.Effect<ToolCallOutcome>) =>
  (envelope: ToolCallEnvelope): Effect.Effect<ToolCallOutcome> => {
    const toolName = String(envelope.toolName).slice(0, 128)
    const toolCallId: unknown = envelope.toolCallId
    return Effect.gen(function* () {
      const outcome = yield* call(envelope)
      const c = outcome.control
      const attributes: Record<string, unknown> = {
        [HarnessAttributes.invocationStatus]: c.status,
        [HarnessAttributes.evidenceStatus]: c.evidenceStatus,
        [HarnessAttributes.requestBytes]: c.requestBytes,
        [HarnessAttributes.rawBytes]: c.rawBytes,
        [HarnessAttributes.projectionBytes]: c.projectionBytes,
        [HarnessAttributes.returnedCount]: c.returnedCount,
        [HarnessAttributes.truncated]: c.truncated
      }
      if (c.errorCode !== null) {
        attributes[HarnessAttributes.errorCode] = c.errorCode
        attributes[GenAiAttributes.errorType] = c.errorCode
      }
      if (yield* CaptureTraceContent) {
        attributes[GenAiAttributes.toolCallResult] = JSON.stringify(outcome.observation)
      }
      yield* Effect.annotateCurrentSpan(attributes)
      return outcome
    }).pipe(
      Effect.withSpan(
        `execute_tool ${toolName}`,
        spanOptions({
          [GenAiAttributes.operationName]: "execute_tool",
          [GenAiAttributes.toolName]: toolName,
          [GenAiAttributes.toolType]: "function",
          // Only a well-formed id is an identity; a malformed one is model output, not ours to export.
          ...(isValidId(toolCallId) ? { [GenAiAttributes.toolCallId]: toolCallId } : {}),
          ...(isValidId(envelope.runId) ? { [HarnessAttributes.runId]: envelope.runId } : {}),
          ...(isValidId(envelope.stepId) ? { [HarnessAttributes.stepId]: envelope.stepId } : {})
        })
      )
    )
  }

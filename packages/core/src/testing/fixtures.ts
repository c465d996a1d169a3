import type { RunId, SessionId, ToolCallId } from "../ids.js"
import {
  type ErrorInvocation,
  newProjectingInvocation,
  type ProjectingInvocation,
  type ReadyInvocation,
  toError,
  toReady
} from "../invocation.js"

let counter = 0
/** A unique, valid id for tests. */
export const testId = (prefix: string): string =>
  `${prefix}-${Date.now().toString(36)}-${(counter++).toString(36)}`

export const projectingRecord = (
  overrides: {
    runId?: string
    toolCallId?: string
    request?: ProjectingInvocation["request"]
    createdAt?: number
  } = {}
): ProjectingInvocation =>
  newProjectingInvocation({
    runId: (overrides.runId ?? testId("run")) as RunId,
    sessionId: "session-1" as SessionId,
    toolCallId: (overrides.toolCallId ?? testId("call")) as ToolCallId,
    toolName: "lookup_knowledge",
    stepId: null,
    request: overrides.request ?? { query: "checkout 500" },
    requestBytes: 24,
    createdAt: overrides.createdAt ?? 1_700_000_000_000
  })

export const readyRecord = (base: ProjectingInvocation, at = base.createdAt + 5): ReadyInvocation =>
  toReady(base, {
    evidenceStatus: "EVIDENCE_FOUND",
    rawResponse: { hits: [{ source: "runbooks/db.md", content: "pool exhausted" }] },
    rawBytes: 60,
    agentResult: { tool_call_id: base.toolCallId, evidence: [{ document_id: "runbooks/db.md" }] },
    projectionBytes: 70,
    truncated: false,
    at
  })

export const errorRecord = (base: ProjectingInvocation, at = base.createdAt + 5): ErrorInvocation =>
  toError(base, "BACKEND_ERROR", at)

import type { DiagnosisResult, ProgressEvent } from "@aiops-harness/agent"
import type { RunTrace } from "@aiops-harness/audit"
import type { AppConfig } from "./config.js"
import type { TraceOutcome } from "./diagnose.js"
import { runPagePath } from "./viewer/model.js"

const str = (value: unknown): string => (typeof value === "string" ? value : JSON.stringify(value))

/** One human-readable line per progress event (the CLI prints these live). */
export const formatProgress = (event: ProgressEvent): string => {
  const e = event as unknown as Record<string, unknown>
  switch (e.type) {
    case "run_started":
      return `> run ${str(e.run_id)} started (session ${str(e.session_id)})`
    case "routing":
      return `> routing: intent=${str(e.intent)}${e.source === "fallback" ? " (keyword fallback: the model call failed)" : ""}`
    case "agent_step":
      return `> agent step ${str(e.step_index)}`
    case "tool_call": {
      const code = e.error_code ? ` error_code=${str(e.error_code)}` : ""
      const evidence = e.evidence_status ? ` ${str(e.evidence_status)}` : ""
      return `  - tool ${str(e.tool)} [${str(e.tool_call_id)}] -> ${str(e.status)}${evidence}${code}`
    }
    case "stop_required":
      return `> STOP_REQUIRED: ${str(e.reason)}`
    case "evidence_guard": {
      const failures =
        typeof e.failures === "number" ? e.failures : Array.isArray(e.failures) ? e.failures.length : 0
      return `> evidence guard: ${e.passed ? "passed" : `failed (${failures} failure${failures === 1 ? "" : "s"})`}`
    }
    case "semantic_guard":
      return `> semantic guard: ${str(e.verdict)}`
    case "release":
      return `> release: ${str(e.decision)}`
    case "run_finished":
      return `> run finished: ${str(e.status)}`
    default:
      return `> ${str(e.type)}`
  }
}

/** The bounded, safe report as the user reads it. */
export const formatReport = (result: DiagnosisResult): string =>
  [`=== ${result.releaseResult} (intent: ${result.intent ?? "none"}) ===`, result.content.trimEnd()].join(
    "\n"
  )

/** The figures of a trace that say whether the run's audit is whole. */
export const traceSummary = (trace: RunTrace) => {
  const r = trace.reconciliation
  const toolCalls = [
    ...trace.agent_steps.flatMap((s) => s.tool_invocations),
    ...trace.tool_invocations_without_step
  ]
  return {
    run_status: trace.run.status,
    release_result: trace.run.release_result,
    events: trace.timeline.length,
    agent_steps: trace.agent_steps.length,
    tool_calls: toolCalls.length,
    tool_calls_ready: toolCalls.filter((t) => t.status === "READY").length,
    model_calls: trace.token_ledger.length,
    tokens: r.ledger_total_tokens,
    tokens_reconciled: r.tokens_reconciled,
    status_reconciled: r.status_reconciled,
    invalid_events: r.invalid_events,
    usage_complete: r.usage_complete,
    audit_complete: r.audit_complete,
    missing_writes: r.missing_writes
  }
}

/**
 * `runPage`: the run's page on the trace viewer (`serve`'s `/runs/<sessionId>/<runId>`), printed
 * as the summary's last line.
 */
export const formatTrace = (
  sessionId: string,
  runId: string,
  outcome: TraceOutcome,
  runPage?: string
): string => {
  const link = runPage ? `\nrun page:          ${runPage}` : ""
  if (!outcome.found)
    return `=== trace (session ${sessionId}, run ${runId}) ===\nunavailable: ${outcome.reason}${link}`
  const s = traceSummary(outcome.trace)
  const sequence = outcome.trace.timeline.map((e) => e.type).join(" -> ")
  return (
    [
      `=== trace (session ${sessionId}, run ${runId}) ===`,
      `events:            ${s.events}`,
      `agent steps:       ${s.agent_steps}`,
      `tool calls:        ${s.tool_calls} (${s.tool_calls_ready} READY)`,
      `model calls:       ${s.model_calls}`,
      `tokens:            ${s.tokens}`,
      `tokens_reconciled: ${s.tokens_reconciled}`,
      `status_reconciled: ${s.status_reconciled}`,
      `invalid_events:    ${s.invalid_events}`,
      `usage_complete:    ${s.usage_complete}`,
      `audit_complete:    ${s.audit_complete}`,
      `timeline:          ${sequence}`
    ].join("\n") + link
  )
}

/**
 * The run's page on `serve` with this configuration. With the in-memory audit the run lives only
 * as long as the CLI process: the line says so (runs are shared through MYSQL_URL).
 */
export const runPageLink = (
  config: Pick<AppConfig, "host" | "port" | "mysqlUrl">,
  sessionId: string,
  runId: string
): string => {
  const host = config.host === "0.0.0.0" || config.host === "::" ? "127.0.0.1" : config.host
  const url = `http://${host.includes(":") ? `[${host}]` : host}:${config.port}${runPagePath(sessionId, runId)}`
  return config.mysqlUrl === null
    ? `${url} (in-memory audit: the run is gone when the CLI exits; set MYSQL_URL for the CLI and serve to share runs)`
    : url
}

import { createHash } from "node:crypto"
import type {
  ListRunsOptions,
  RunListEntry,
  RunSummary,
  RunTrace,
  TimelineEntry,
  ToolInvocationEntry
} from "@aiops-harness/audit"
import { hasEventType, type TimelineEventOf, type TimelineEventType } from "@aiops-harness/core"

/** What a run came to, as the runs list names it. */
export const OUTCOMES = ["released", "cannot_conclude", "refused", "cancelled", "failed", "running"] as const
export type Outcome = (typeof OUTCOMES)[number]

export const OUTCOME_LABEL: Record<Outcome, string> = {
  released: "released report",
  cannot_conclude: "cannot conclude",
  refused: "refused (not a diagnosis)",
  cancelled: "cancelled",
  failed: "failed",
  running: "running"
}

export const isOutcome = (value: unknown): value is Outcome =>
  typeof value === "string" && (OUTCOMES as ReadonlyArray<string>).includes(value)

/** The outcome of a run from its `diagnosis_run` record. */
export const outcomeOf = (run: Pick<RunSummary, "status" | "release_result">): Outcome => {
  if (run.status === "RUNNING" || run.status === null) return "running"
  if (run.status === "CANCELLED") return "cancelled"
  if (run.status === "FAILED" || run.release_result === "RUN_FAILED") return "failed"
  if (run.release_result === "DIAGNOSIS_REPORT") return "released"
  if (run.release_result === "NOT_A_DIAGNOSIS") return "refused"
  return "cannot_conclude"
}

/** The audit's list filter for an outcome (each outcome is one status or one release result). */
export const outcomeFilter = (outcome: Outcome): Pick<ListRunsOptions, "status" | "releaseResult"> => {
  switch (outcome) {
    case "released":
      return { releaseResult: "DIAGNOSIS_REPORT" }
    case "cannot_conclude":
      return { releaseResult: "CANNOT_CONCLUDE" }
    case "refused":
      return { releaseResult: "NOT_A_DIAGNOSIS" }
    case "cancelled":
      return { status: "CANCELLED" }
    case "failed":
      return { status: "FAILED" }
    case "running":
      return { status: "RUNNING" }
  }
}

/** The path of a run's page (ids are `[A-Za-z0-9_.-]`: safe in a path as they are). */
export const runPagePath = (sessionId: string, runId: string): string =>
  `/runs/${encodeURIComponent(sessionId)}/${encodeURIComponent(runId)}`

/** The runs list filter (`/?outcome=&session=`). */
export interface RunsFilter {
  readonly outcome: Outcome | null
  readonly session: string | null
}

/** `/` with the filter and page position as query parameters (only the ones set). */
export const listHref = (filter: RunsFilter, before: string | null = null): string => {
  const params = new URLSearchParams()
  if (filter.outcome) params.set("outcome", filter.outcome)
  if (filter.session) params.set("session", filter.session)
  if (before) params.set("before", before)
  const query = params.toString()
  return query ? `/?${query}` : "/"
}

/** Element id of a tool call's details (tool call ids are `[A-Za-z0-9_.-]`). */
export const callAnchor = (toolCallId: string): string => `call-${toolCallId}`

/** Element id of one evidence item (document, pattern, row) of one call: refs are free text, so a digest. */
export const evidenceAnchor = (toolCallId: string, ref: string): string =>
  `ev-${createHash("sha256").update(`${toolCallId}\u0000${ref}`).digest("hex").slice(0, 16)}`

/** Error codes that mean the boundary refused the call (as opposed to a call that failed). */
const REFUSAL_CODES = new Set([
  "RUN_NOT_ACTIVE",
  "RUN_MISMATCH",
  "INVALID_TOOL_CALL_ID",
  "DUPLICATE_TOOL_CALL_ID",
  "UNKNOWN_TOOL",
  "TOOL_NOT_AUTHORIZED",
  "TOOL_NOT_READ_ONLY",
  "INVALID_REQUEST",
  "REQUEST_TOO_LARGE",
  "BUDGET_EXHAUSTED"
])

export type CallState = "ok" | "no_evidence" | "error" | "refused" | "running"

export const callState = (call: ToolInvocationEntry): CallState => {
  if (call.error_code !== null && REFUSAL_CODES.has(call.error_code)) return "refused"
  if (call.status === null) return "refused"
  if (call.status === "ERROR") return "error"
  if (call.status === "PROJECTING") return "running"
  return call.evidence_status === "NO_EVIDENCE" ? "no_evidence" : "ok"
}

export type RowState = CallState | "warn"

/** One bar of the waterfall. Times are epoch ms; a point event has `end === start`. */
export interface WaterfallRow {
  readonly kind: "routing" | "step" | "tool" | "guard" | "release" | "stop"
  readonly label: string
  readonly detail: string
  readonly start: number
  readonly end: number
  readonly tokens: number | null
  readonly state: RowState
  /** Nested under the step above it. */
  readonly nested: boolean
  readonly href: string | null
}

export interface Waterfall {
  readonly t0: number
  readonly t1: number
  readonly rows: ReadonlyArray<WaterfallRow>
}

/** The first event of a type, its payload typed (trace entries parsed with the event schemas). */
export const firstOf = <T extends TimelineEventType>(
  timeline: ReadonlyArray<TimelineEntry>,
  type: T
): (TimelineEntry & TimelineEventOf<T>) | undefined =>
  timeline.find((e): e is TimelineEntry & TimelineEventOf<T> => hasEventType(e, type))

const str = (v: unknown): string =>
  typeof v === "string" ? v : v === null || v === undefined ? "" : String(v)

/** Every tool invocation of a trace, in issue order. */
export const toolCallsOf = (trace: RunTrace): ReadonlyArray<ToolInvocationEntry> =>
  [...trace.agent_steps.flatMap((s) => s.tool_invocations), ...trace.tool_invocations_without_step].sort(
    (a, b) => a.started_at - b.started_at
  )

/**
 * The run on a time axis: routing (the router's model call), each agent step (its model call)
 * with the tool calls it issued, tool calls without a step, stops, the guards and the release.
 * Spans come from the audit: step and tool records carry start + latency; routing and the
 * semantic guard span from the event before them to their decision.
 */
export const waterfallOf = (trace: RunTrace, now: number): Waterfall => {
  const { timeline, run } = trace
  const ledger = trace.token_ledger
  const started = firstOf(timeline, "RUN_STARTED")
  const t0 = run.started_at ?? started?.at ?? timeline[0]?.at ?? now
  const rows: Array<WaterfallRow> = []

  const decision = firstOf(timeline, "ROUTING_DECISION")
  const attempt = firstOf(timeline, "ROUTING_ATTEMPT")
  if (decision || attempt) {
    const router = ledger.find((u) => u.component === "router")
    const failed = typeof attempt?.payload.error_reason === "string"
    const fallback = decision?.payload.source === "fallback"
    rows.push({
      kind: "routing",
      label: "routing",
      detail: `intent ${str(decision?.payload.intent) || "?"}${fallback ? " (keyword fallback)" : ""}${failed ? ` · model error ${str(attempt?.payload.error_reason)}` : ""}`,
      start: t0,
      end: (decision ?? attempt)!.at,
      tokens: router?.total_tokens ?? null,
      state: failed ? "error" : fallback ? "warn" : "ok",
      nested: false,
      href: null
    })
  }

  const toolRow = (call: ToolInvocationEntry, nested: boolean): WaterfallRow => ({
    kind: "tool",
    label: call.tool_name,
    detail: `${call.tool_call_id} · ${call.status ?? "refused"}${call.evidence_status && call.evidence_status !== "ERROR" ? ` ${call.evidence_status}` : ""}${call.error_code ? ` · ${call.error_code}` : ""}`,
    start: call.started_at,
    end: call.started_at + call.latency_ms,
    tokens: null,
    state: callState(call),
    nested,
    href: `#${callAnchor(call.tool_call_id)}`
  })

  for (const step of trace.agent_steps) {
    rows.push({
      kind: "step",
      label: `step ${step.step_index}`,
      detail: `model call · ${step.outcome}${step.tool_call_ids.length > 0 ? ` · ${step.tool_call_ids.length} tool call(s)` : ""}`,
      start: step.started_at,
      end: step.started_at + step.latency_ms,
      tokens: step.total_tokens,
      state: step.outcome === "error" ? "error" : step.usage_available ? "ok" : "warn",
      nested: false,
      href: `#step-${step.step_index}`
    })
    for (const call of step.tool_invocations) rows.push(toolRow(call, true))
  }
  for (const call of trace.tool_invocations_without_step) rows.push(toolRow(call, false))

  for (const stop of timeline.filter((e) => e.type === "STOP_REQUIRED")) {
    rows.push({
      kind: "stop",
      label: "stop required",
      detail: str(stop.payload.reason),
      start: stop.at,
      end: stop.at,
      tokens: null,
      state: "warn",
      nested: false,
      href: null
    })
  }

  const evidence = firstOf(timeline, "EVIDENCE_GUARD_INITIAL")
  if (evidence) {
    const failures = Array.isArray(evidence.payload.failures) ? evidence.payload.failures.length : 0
    rows.push({
      kind: "guard",
      label: "evidence guard",
      detail: evidence.payload.passed ? "passed" : `failed (${failures} failure(s))`,
      start: evidence.at,
      end: evidence.at,
      tokens: null,
      state: evidence.payload.passed ? "ok" : "error",
      nested: false,
      href: "#guards"
    })
  }
  const semantic = firstOf(timeline, "SEMANTIC_GUARD_DECISION")
  const semanticAttempt = firstOf(timeline, "SEMANTIC_GUARD_ATTEMPT")
  if (semantic || semanticAttempt) {
    const end = (semantic ?? semanticAttempt)!.at
    const usage = ledger.find((u) => u.component === "semantic_guard")
    rows.push({
      kind: "guard",
      label: "semantic guard",
      detail: `model call · ${str(semantic?.payload.verdict) || str(semanticAttempt?.payload.outcome)}`,
      start: Math.min(evidence?.at ?? end, end),
      end,
      tokens: usage?.total_tokens ?? null,
      state: semantic?.payload.passed === true ? "ok" : "error",
      nested: false,
      href: "#guards"
    })
  }
  const release = firstOf(timeline, "RELEASE_DECISION")
  if (release) {
    rows.push({
      kind: "release",
      label: "release decision",
      detail: str(release.payload.decision),
      start: release.at,
      end: release.at,
      tokens: null,
      state: release.payload.decision === "PUBLISH_REPORT" ? "ok" : "warn",
      nested: false,
      href: "#guards"
    })
  }

  const lastAt = Math.max(t0, ...timeline.map((e) => e.at), ...rows.map((r) => r.end))
  const t1 = run.finished_at ?? (run.status === "RUNNING" ? Math.max(lastAt, now) : lastAt)
  return { t0, t1: Math.max(t1, t0 + 1), rows }
}

/** One citation as the released report prints it: `tool_call_id:kind:ref`. */
export interface ReportCitation {
  readonly toolCallId: string
  readonly kind: string
  readonly ref: string
  readonly text: string
}

export type ReportPart =
  | { readonly type: "text"; readonly text: string }
  | { readonly type: "citations"; readonly citations: ReadonlyArray<ReportCitation> }

const CITATION_BLOCK = /\[([^[\]\n]+)\]\s*$/
const CITATION = /^([A-Za-z0-9][A-Za-z0-9_.-]{0,127}):(document|pattern|excerpt|row|no_evidence)(?::(.*))?$/s

/**
 * Splits the released report into text and its citation blocks (`[call:kind:ref; ...]` at the
 * end of a finding). A block whose every item names a tool call of this run becomes links;
 * anything else stays text.
 */
export const reportParts = (content: string, knownCalls: ReadonlySet<string>): ReadonlyArray<ReportPart> => {
  const parts: Array<ReportPart> = []
  const lines = content.split("\n")
  lines.forEach((line, i) => {
    const newline = i < lines.length - 1 ? "\n" : ""
    const match = CITATION_BLOCK.exec(line)
    const items = match ? match[1]!.split("; ").map((item) => ({ item, m: CITATION.exec(item) })) : []
    if (!match || items.length === 0 || items.some(({ m }) => !m || !knownCalls.has(m[1]!))) {
      parts.push({ type: "text", text: line + newline })
      return
    }
    parts.push({ type: "text", text: line.slice(0, match.index) })
    parts.push({
      type: "citations",
      citations: items.map(({ item, m }) => ({
        toolCallId: m![1]!,
        kind: m![2]!,
        ref: m![3] ?? "",
        text: item
      }))
    })
    parts.push({ type: "text", text: newline })
  })
  return parts
}

/** Evidence refs an observation offers, by kind (`document_id`, `pattern_id`, row index). */
export const evidenceRefsOf = (
  observation: unknown
): ReadonlyArray<{ kind: string; ref: string; index: number }> => {
  if (typeof observation !== "object" || observation === null) return []
  const o = observation as Record<string, unknown>
  const refs: Array<{ kind: string; ref: string; index: number }> = []
  const list = (value: unknown) => (Array.isArray(value) ? value : [])
  list(o.evidence).forEach((e, index) => {
    const id = (e as Record<string, unknown> | null)?.document_id
    if (typeof id === "string") refs.push({ kind: "document", ref: id, index })
  })
  list(o.patterns).forEach((p, index) => {
    const id = (p as Record<string, unknown> | null)?.pattern_id
    if (typeof id === "string") refs.push({ kind: "pattern", ref: id, index })
  })
  return refs
}

/** A row citation names its row first: `3`, `rows[3]` or `rows[3].column=value`. */
export const rowIndexOfRef = (ref: string): number | null => {
  const m = /^(?:rows\[(\d+)\]|(\d+))/.exec(ref)
  return m ? Number(m[1] ?? m[2]) : null
}

/** Where a citation points: the cited evidence item when the page shows it, else the call. */
export const citationTarget = (
  citation: ReportCitation,
  shownEvidence: ReadonlySet<string>
): { href: string; evidence: boolean } => {
  const rowIndex = citation.kind === "row" ? rowIndexOfRef(citation.ref) : null
  const anchor =
    citation.kind === "document" || citation.kind === "pattern"
      ? evidenceAnchor(citation.toolCallId, citation.ref)
      : rowIndex !== null
        ? evidenceAnchor(citation.toolCallId, `rows[${rowIndex}]`)
        : null
  return anchor && shownEvidence.has(anchor)
    ? { href: `#${anchor}`, evidence: true }
    : { href: `#${callAnchor(citation.toolCallId)}`, evidence: false }
}

export const formatMs = (ms: number | null): string => {
  if (ms === null) return "—"
  if (ms < 1000) return `${ms} ms`
  if (ms < 60_000) return `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`
  return `${Math.floor(ms / 60_000)} min ${Math.round((ms % 60_000) / 1000)} s`
}

export const formatTime = (epochMs: number | null): string =>
  epochMs === null
    ? "—"
    : new Date(epochMs)
        .toISOString()
        .replace("T", " ")
        .replace(/\.\d{3}Z$/, "Z")

export const formatTokens = (tokens: number | null): string => (tokens === null ? "unknown" : String(tokens))

export type { RunListEntry }

/**
 * The reasons a bounded answer gives (its `Missing:` list; `releaseDecision` writes one item per
 * line), so the release decision can show them next to the decision.
 */
export const missingReasonsOf = (content: string | null): ReadonlyArray<string> => {
  if (content === null) return []
  const lines = content.split("\n")
  const start = lines.indexOf("Missing:")
  if (start < 0) return []
  const reasons: Array<string> = []
  for (const line of lines.slice(start + 1)) {
    if (!line.startsWith("- ")) break
    reasons.push(line.slice(2))
  }
  return reasons
}

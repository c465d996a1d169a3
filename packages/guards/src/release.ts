import {
  type ControlView,
  type EvidenceStatus,
  type InvocationStatus,
  isValidId,
  type JsonObject,
  type ToolErrorCode
} from "@aiops-harness/core"
import type { Citation, DraftReport } from "./draft.js"
import type { EvidenceGuardResult } from "./evidence-guard.js"
import {
  EVIDENCE_QUOTE_MARKER,
  type EvidenceIndex,
  evidenceIndex,
  inlineText,
  looksLikeInstruction,
  quoteInline,
  type ReleasedTextLimits,
  releasedText
} from "./released-text.js"
import type { SemanticGuardResult } from "./semantic-guard.js"

/** One tool call the run made, as the harness saw it (Control View facts, no raw data). */
export interface CheckedScope {
  readonly toolCallId: string | null
  readonly tool: string
  readonly status: InvocationStatus
  readonly evidenceStatus: EvidenceStatus
  readonly errorCode: ToolErrorCode | null
  /** The actual, normalized scope (topic, query, service, window, ...); null when refused. */
  readonly scope: JsonObject | null
}

/** The `CheckedScope` of one tool call, from its Control View. */
export const checkedScopeOf = (control: ControlView): CheckedScope => ({
  toolCallId: control.toolCallId,
  tool: control.toolName,
  status: control.status,
  evidenceStatus: control.evidenceStatus,
  errorCode: control.errorCode,
  scope: control.scope
})

/** Tools whose results are knowledge (runbooks, docs) rather than observations of the system. */
export const DEFAULT_KNOWLEDGE_TOOLS: ReadonlySet<string> = new Set(["lookup_knowledge"])

/**
 * How the caller classifies its tools. A *system observation* is a result of a tool that looked
 * at the system itself (logs, database, metrics); knowledge lookups only say what runbooks say.
 */
export interface ObservationClassification {
  /** Knowledge tools; every other tool is a system observation. Default {@link DEFAULT_KNOWLEDGE_TOOLS}. */
  readonly knowledgeTools?: ReadonlySet<string>
  /** When given, exactly these tools are system observations (`knowledgeTools` is then ignored). */
  readonly systemTools?: ReadonlySet<string>
}

/** True when the tool observes the system itself (see `ObservationClassification`). */
export const isSystemObservationTool = (
  tool: string,
  classification: ObservationClassification = {}
): boolean =>
  classification.systemTools
    ? classification.systemTools.has(tool)
    : !(classification.knowledgeTools ?? DEFAULT_KNOWLEDGE_TOOLS).has(tool)

/**
 * Indexes of the positive claims that passed the EvidenceGuard and cite at least one READY
 * `EVIDENCE_FOUND` system observation (the stored record's tool, never the draft's word).
 */
export const systemBackedClaims = (
  draft: DraftReport,
  evidence: EvidenceGuardResult,
  classification: ObservationClassification = {}
): number[] => {
  const byId = new Map(evidence.evidence.map((e) => [e.toolCallId, e]))
  const out: number[] = []
  draft.claims.forEach((claim, i) => {
    if (claim.negative === true) return
    const check = evidence.claims.find((c) => c.claimIndex === i)
    if (check ? !check.passed : !evidence.passed) return
    const backed = claim.citations.some((c) => {
      const e = byId.get(c.tool_call_id)
      return (
        c.kind !== "no_evidence" &&
        e !== undefined &&
        e.evidenceStatus === "EVIDENCE_FOUND" &&
        isSystemObservationTool(e.toolName, classification)
      )
    })
    if (backed) out.push(i)
  })
  return out
}

/** The ReleaseDecision: publish the report, or a bounded cannot-conclude answer. */
export type ReleaseDecisionKind = "PUBLISH_REPORT" | "CANNOT_CONCLUDE"

/** The ReleaseDecision with the released text and why the report was not published. */
export interface ReleaseDecisionResult {
  readonly decision: ReleaseDecisionKind
  /** The released text: the report, or a bounded answer saying what was checked and what is missing. */
  readonly content: string
  /**
   * The released draft when published ({@link releasedDraft}: negative claims in the harness's
   * wording, prose with marked evidence quotes and reduced links); `null` otherwise.
   */
  readonly report: DraftReport | null
  /** Why the report was not published (empty when published). */
  readonly missing: ReadonlyArray<string>
}

/** Bounds of the released text and of the lists in a cannot-conclude answer. */
export interface ReleaseLimits {
  readonly maxChars: number
  readonly maxCheckedListed: number
  readonly maxMissingListed: number
}

/** Default `ReleaseLimits`. */
export const defaultReleaseLimits: ReleaseLimits = {
  maxChars: 6000,
  maxCheckedListed: 10,
  maxMissingListed: 8
}

/**
 * The draft with every negative claim's text replaced by the harness's wording of its scope
 * (`ClaimCheck.scopedText`, else a generic sentence naming the cited tools): the model's text of
 * a negative claim is never judged or released. Positive claims are unchanged.
 */
export const withScopedNegatives = (
  draft: DraftReport,
  evidence: EvidenceGuardResult | null
): DraftReport => {
  if (!draft.claims.some((c) => c.negative === true)) return draft
  const tools = new Map((evidence?.evidence ?? []).map((e) => [e.toolCallId, e.toolName]))
  return {
    ...draft,
    claims: draft.claims.map((claim, i) => {
      if (claim.negative !== true) return claim
      const scoped = evidence?.claims.find((c) => c.claimIndex === i)?.scopedText
      if (scoped) return { ...claim, text: scoped }
      const cited = [...new Set(claim.citations.map((c) => tools.get(c.tool_call_id) ?? "a tool"))]
      return {
        ...claim,
        text: `No evidence was found by ${cited.map((t) => quoteInline(t, 64)).join(", ")}.`
      }
    })
  }
}

/**
 * A citation's ref as released: one line, bounded, links reduced; evidence text (`excerpt`,
 * `row`) as a marked quote in the content (`marked`), quoted in the report object.
 */
const releasedRef = (c: Citation, max: number, marked = false): string => {
  const body = inlineText(c.ref, max)
  // ids (document, pattern) are data too: a document named like an instruction stays labelled
  if (c.kind !== "excerpt" && c.kind !== "row")
    return looksLikeInstruction(c.ref) ? quoteInline(c.ref, max) : body
  return marked ? `[${EVIDENCE_QUOTE_MARKER}: "${body}"]` : `"${body}"`
}

/**
 * The draft as it may be released: negative claims in the harness's wording
 * ({@link withScopedNegatives}); summary, claim texts and next steps through
 * {@link releasedText} (copied evidence as marked, bounded quotes, instruction-like sentences
 * quoted, links reduced to their host); refs bounded to 200 characters.
 */
export const releasedDraft = (
  draft: DraftReport,
  evidence: EvidenceGuardResult | null,
  index: EvidenceIndex,
  limits: Partial<ReleasedTextLimits> = {}
): DraftReport => {
  const scoped = withScopedNegatives(draft, evidence)
  const text = (s: string) => releasedText(s, index, limits)
  return {
    summary: text(scoped.summary),
    claims: scoped.claims.map((claim) => ({
      ...claim,
      text: text(claim.text),
      citations: claim.citations.map((c) => ({ ...c, ref: c.ref ? releasedRef(c, 200) : c.ref }))
    })),
    ...(scoped.next_steps ? { next_steps: scoped.next_steps.map(text) } : {})
  }
}

const clip = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, Math.max(0, n - 1))}…`)

const scopeText = (scope: JsonObject | null): string => {
  if (!scope) return "(refused before execution)"
  const window =
    typeof scope.start_time === "string" && typeof scope.end_time === "string"
      ? `window ${scope.start_time}..${scope.end_time}`
      : null
  const parts = Object.entries(scope)
    .filter(([k, v]) => k !== "start_time" && k !== "end_time" && v !== null && v !== undefined)
    // Scope values may be model text (a query): bounded quotes, links reduced.
    .map(([k, v]) => `${k}=${typeof v === "string" ? quoteInline(v, 100) : clip(JSON.stringify(v), 100)}`)
  if (window) parts.push(window)
  return clip(parts.join(", "), 300)
}

/** A refused call keeps the model's tool name: bounded, and labelled when it reads like an instruction. */
const toolText = (tool: string): string =>
  looksLikeInstruction(tool) ? quoteInline(tool, 64) : inlineText(tool, 64)

const checkedLine = (c: CheckedScope): string =>
  `- ${toolText(c.tool)} ${scopeText(c.scope)} -> ${c.errorCode ? `ERROR ${c.errorCode}` : c.evidenceStatus}`

/**
 * ReleaseDecision: publish only when there is a draft, both guards passed and at least one
 * positive claim cites a READY `EVIDENCE_FOUND` *system observation* (a tool that is not a
 * knowledge lookup, see {@link ObservationClassification}) whenever the run could observe the
 * system (`systemToolsOffered`). Runbook-only claims may support a
 * report but never carry it: "runbooks suggest X" with every system observation empty is a
 * `CANNOT_CONCLUDE` that says so. Otherwise a bounded, honest `CANNOT_CONCLUDE` answer listing the
 * checked tools and scopes (with windows) and what is missing.
 */
export const releaseDecision = (input: {
  readonly draft: DraftReport | null
  readonly evidence: EvidenceGuardResult | null
  readonly semantic: SemanticGuardResult | null
  readonly checked: ReadonlyArray<CheckedScope>
  /** Why the loop stopped early (`NO_GAIN`, `DUPLICATE_REQUEST`, `STEP_BUDGET`, ...), if it did. */
  readonly stopReason?: string | null
  readonly limits?: Partial<ReleaseLimits>
  /** Which tools observe the system; default: every tool except `lookup_knowledge`. */
  readonly classification?: ObservationClassification
  /**
   * Whether the run could observe the system (a log, database, ... tool was offered). When it
   * could, a release needs a claim backed by a system observation; a knowledge-only deployment
   * (no system tool at all) may release runbook-backed reports, as the reference sample did.
   * Default: whether any system tool was called.
   */
  readonly systemToolsOffered?: boolean
  /**
   * The agent results of every READY call of the run (what the model saw): released prose copied
   * from them is marked as quoted evidence. Default: the cited records' results.
   */
  readonly observed?: ReadonlyArray<JsonObject>
  readonly textLimits?: Partial<ReleasedTextLimits>
}): ReleaseDecisionResult => {
  const limits = { ...defaultReleaseLimits, ...input.limits }
  const { draft, evidence, semantic } = input
  const index = evidenceIndex(
    input.observed ?? evidence?.evidence.map((e) => e.agentResult) ?? [],
    input.textLimits?.minQuoteMatchChars
  )
  const text = (s: string) => releasedText(s, index, input.textLimits)
  const missing: string[] = []
  /** Positive claims backed by knowledge only (runbooks suggest ..., nothing observed confirmed it). */
  let unconfirmed: string[] = []
  if (!draft) missing.push("a draft report in the expected format")
  else {
    if (!draft.claims.some((c) => c.negative !== true)) {
      // Negative claims only say what a search did not find: no cause rests on them alone.
      missing.push(
        "positive evidence for a cause: no claim is backed by evidence found (negative claims only state what a search did not find)"
      )
    }
    if (!evidence) missing.push("an evidence check of the citations")
    else if (!evidence.passed) {
      if (!evidence.storeAvailable)
        missing.push("proof of the cited evidence: the evidence store is unavailable")
      for (const f of evidence.failures) {
        if (f.reason === "NO_CLAIMS" || f.reason === "STORE_UNAVAILABLE") continue
        // The id is model text: named only when it is a well-formed id.
        const id = f.toolCallId && isValidId(f.toolCallId) ? ` (${f.toolCallId})` : ""
        missing.push(`claim ${(f.claimIndex ?? 0) + 1}: ${f.reason}${id}`)
      }
    }
    const systemObservable =
      input.systemToolsOffered ??
      input.checked.some((c) => isSystemObservationTool(c.tool, input.classification))
    if (systemObservable && evidence?.passed && draft.claims.some((c) => c.negative !== true)) {
      if (systemBackedClaims(draft, evidence, input.classification).length === 0) {
        unconfirmed = draft.claims.filter((c) => c.negative !== true).map((c) => c.text)
        missing.push(
          "a system observation: no positive claim cites a log, database or other system observation that found evidence; knowledge (runbooks) alone cannot carry a diagnosis"
        )
      }
    }
    if (evidence?.passed) {
      if (!semantic) missing.push("a semantic check of the conclusion")
      else if (!semantic.passed) {
        if (semantic.verdict === "JUDGE_FAILED") missing.push("a semantic check: the judge call failed")
        for (const v of semantic.verdicts) {
          if (v.verdict !== "SUPPORTED") missing.push(`claim ${v.claim_index + 1}: judged ${v.verdict}`)
        }
        if (semantic.summaryVerdict && semantic.summaryVerdict !== "SUPPORTED") {
          missing.push(`the summary: judged ${semantic.summaryVerdict}`)
        }
      }
    }
  }

  if (missing.length === 0 && draft && evidence?.passed && semantic?.passed) {
    const report = releasedDraft(draft, evidence, index, input.textLimits)
    const lines: string[] = []
    if (report.summary.trim()) lines.push(report.summary.trim(), "")
    lines.push("Findings:")
    report.claims.forEach((claim, i) => {
      const cited = draft.claims[i]?.citations ?? []
      const refs = cited.map(
        (c) => `${c.tool_call_id}:${c.kind}${c.ref ? `:${releasedRef(c, 60, true)}` : ""}`
      )
      lines.push(`${i + 1}. ${claim.text} [${refs.join("; ")}]`)
    })
    if (report.next_steps?.length) {
      lines.push("", "Next steps:")
      for (const s of report.next_steps) lines.push(`- ${s}`)
    }
    return {
      decision: "PUBLISH_REPORT",
      content: clip(lines.join("\n"), limits.maxChars),
      report,
      missing: []
    }
  }

  const lines: string[] = [
    unconfirmed.length > 0
      ? "Cannot conclude: runbooks suggest a cause, but no observation of the system confirmed it."
      : "Cannot conclude: the evidence gathered does not support a diagnosis that can be released."
  ]
  if (input.stopReason) lines.push(`The investigation stopped early (${input.stopReason}).`)
  if (unconfirmed.length > 0) {
    lines.push("", "Runbooks suggest (not confirmed by any system observation):")
    for (const claim of unconfirmed.slice(0, 3)) lines.push(`- ${clip(text(claim), 300)}`)
    if (unconfirmed.length > 3) lines.push(`- … and ${unconfirmed.length - 3} more`)
    const system = input.checked.filter((c) => isSystemObservationTool(c.tool, input.classification))
    const found = system.filter((c) => c.status === "READY" && c.evidenceStatus === "EVIDENCE_FOUND").length
    lines.push(
      system.length === 0
        ? "No system observation (logs, database) was made."
        : `System observations checked: ${system.length}, with evidence found: ${found} (none cited in support).`
    )
  }
  lines.push("", "Checked:")
  if (input.checked.length === 0) lines.push("- no tool calls were made")
  for (const c of input.checked.slice(0, limits.maxCheckedListed)) lines.push(checkedLine(c))
  if (input.checked.length > limits.maxCheckedListed) {
    lines.push(`- … and ${input.checked.length - limits.maxCheckedListed} more`)
  }
  lines.push("", "Missing:")
  for (const m of missing.slice(0, limits.maxMissingListed)) lines.push(`- ${m}`)
  if (missing.length > limits.maxMissingListed)
    lines.push(`- … and ${missing.length - limits.maxMissingListed} more`)
  return {
    decision: "CANNOT_CONCLUDE",
    content: clip(lines.join("\n"), limits.maxChars),
    report: null,
    missing
  }
}

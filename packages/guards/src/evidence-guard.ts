import {
  type CanonicalInvocation,
  CanonicalInvocationStore,
  type EvidenceStatus,
  type InvocationStatus,
  isValidId,
  type JsonObject,
  type RunId,
  type ToolCallId
} from "@aiops-harness/core"
import { Effect, Option } from "effect"
import { type CitationToolPolicy, citationKindMatchesTool, DEFAULT_MYSQL_TOOLS } from "./citation-tools.js"
import type { Citation, DraftReport } from "./draft.js"
import { checkNegativeClaim, negativeClaimBeyondAbsence, scopedNegativeText } from "./negative.js"
import { isBareRowIndex, refPresent } from "./refs.js"

/** Why one citation (or the draft as a whole) was refused. Stable codes. */
export type CitationFailureReason =
  | "NO_CLAIMS"
  | "NO_CITATIONS"
  | "INVALID_TOOL_CALL_ID"
  | "INVOCATION_NOT_FOUND"
  | "NOT_READY"
  | "INVOCATION_ERROR"
  | "REF_NOT_FOUND"
  | "NO_EVIDENCE_FOR_POSITIVE_CLAIM"
  | "NOT_NO_EVIDENCE"
  | "UNSCOPED_NEGATIVE_CLAIM"
  | "NEGATIVE_CLAIM_BEYOND_ABSENCE"
  | "CITATION_KIND_MISMATCH"
  | "ROW_REF_TOO_WEAK"
  | "LITERAL_CELL"
  | "STORE_UNAVAILABLE"

/** Why the EvidenceGuard rejected one citation (or the whole draft). */
export interface CitationFailure {
  /** `null` for draft-level failures (`NO_CLAIMS`). */
  readonly claimIndex: number | null
  readonly toolCallId: string | null
  readonly kind: Citation["kind"] | null
  readonly reason: CitationFailureReason
}

/** The EvidenceGuard's check of one claim and its citations. */
export interface ClaimCheck {
  readonly claimIndex: number
  readonly negative: boolean
  readonly passed: boolean
  readonly failures: ReadonlyArray<CitationFailure>
  /**
   * A negative claim that passed: the harness's wording of the absence, written from the cited
   * records' stored scopes ({@link scopedNegativeText}). It replaces the model's text wherever
   * the claim is judged or released. `null` otherwise.
   */
  readonly scopedText?: string | null
}

/** A READY invocation cited by the draft, read from the canonical store (never from the model). */
export interface CitedEvidence {
  readonly toolCallId: string
  readonly toolName: string
  readonly evidenceStatus: "EVIDENCE_FOUND" | "NO_EVIDENCE"
  readonly agentResult: JsonObject
}

/** The EvidenceGuard's verdict on a draft: per-claim checks and whether the store could answer. */
export interface EvidenceGuardResult {
  readonly passed: boolean
  /** False when the store could not answer: every claim then fails (fail closed). */
  readonly storeAvailable: boolean
  readonly claims: ReadonlyArray<ClaimCheck>
  readonly failures: ReadonlyArray<CitationFailure>
  /** The READY invocations the draft cited, in first-cited order. */
  readonly evidence: ReadonlyArray<CitedEvidence>
}

type Lookup =
  | { readonly _tag: "Found"; readonly record: CanonicalInvocation }
  | { readonly _tag: "Missing" }
  | { readonly _tag: "Invalid" }
  | { readonly _tag: "StoreDown" }

const checkCitation = (
  lookup: Lookup,
  citation: Citation,
  claim: { readonly text: string; readonly negative: boolean },
  policy: CitationToolPolicy
): {
  reason: CitationFailureReason | null
  status: InvocationStatus | null
  evidence: EvidenceStatus | null
} => {
  switch (lookup._tag) {
    case "Invalid":
      return { reason: "INVALID_TOOL_CALL_ID", status: null, evidence: null }
    case "Missing":
      return { reason: "INVOCATION_NOT_FOUND", status: null, evidence: null }
    case "StoreDown":
      return { reason: "STORE_UNAVAILABLE", status: null, evidence: null }
  }
  const record = lookup.record
  if (record.status === "PROJECTING") return { reason: "NOT_READY", status: "PROJECTING", evidence: null }
  if (record.status === "ERROR") return { reason: "INVOCATION_ERROR", status: "ERROR", evidence: "ERROR" }
  const base = { status: record.status, evidence: record.evidenceStatus }
  const { negative } = claim
  // A pattern only from a log call, a document only from a knowledge call, a row only from a
  // MySQL call: the stored record's tool decides, never the draft.
  if (!citationKindMatchesTool(citation.kind, record.toolName, policy)) {
    return { ...base, reason: "CITATION_KIND_MISMATCH" }
  }
  if (record.evidenceStatus === "NO_EVIDENCE" && !negative) {
    return { ...base, reason: "NO_EVIDENCE_FOR_POSITIVE_CLAIM" }
  }
  if (citation.kind === "no_evidence" && !negative)
    return { ...base, reason: "NO_EVIDENCE_FOR_POSITIVE_CLAIM" }
  // A negative claim states an absence: only records that found nothing can back it.
  if ((citation.kind === "no_evidence" || negative) && record.evidenceStatus !== "NO_EVIDENCE") {
    return { ...base, reason: "NOT_NO_EVIDENCE" }
  }
  // NO_EVIDENCE is citable only as a scoped negative observation, never "the fault does not exist".
  if (record.evidenceStatus === "NO_EVIDENCE" && !checkNegativeClaim(claim.text, record).scoped) {
    return { ...base, reason: "UNSCOPED_NEGATIVE_CLAIM" }
  }
  // Absence within the scope, nothing more: no cause or inference rides on a negative claim.
  if (negative && negativeClaimBeyondAbsence(claim.text)) {
    return { ...base, reason: "NEGATIVE_CLAIM_BEYOND_ABSENCE" }
  }
  if (citation.kind === "no_evidence") return { ...base, reason: null }
  if (citation.kind === "row" && isBareRowIndex(citation.ref)) return { ...base, reason: "ROW_REF_TOO_WEAK" }
  // SQL results: only cells of columns the validated plan derived from table data are evidence.
  const tableCellsOnly = (policy.rowTools ?? DEFAULT_MYSQL_TOOLS).has(record.toolName)
  if (refPresent(record.agentResult, citation.kind, citation.ref, { tableCellsOnly }))
    return { ...base, reason: null }
  const literal = tableCellsOnly && refPresent(record.agentResult, citation.kind, citation.ref)
  return { ...base, reason: literal ? "LITERAL_CELL" : "REF_NOT_FOUND" }
}

/** The harness wording of a passed negative claim: one sentence per distinct cited record. */
const scopedTextOf = (citations: ReadonlyArray<Citation>, lookups: ReadonlyMap<string, Lookup>): string => {
  const texts: string[] = []
  for (const c of citations) {
    const lookup = lookups.get(c.tool_call_id)
    if (lookup?._tag !== "Found" || lookup.record.status !== "READY") continue
    const text = scopedNegativeText(lookup.record)
    if (!texts.includes(text)) texts.push(text)
  }
  return texts.join(" ")
}

/**
 * EvidenceGuard: every claim needs at least one citation and every citation must hold.
 * For each cited `tool_call_id` it rebuilds the key from the *current* `runId` (never from
 * the draft or the model's history), reads the canonical record, requires READY and the
 * cited ref present in the stored `agentResult`. NO_EVIDENCE records support only claims
 * marked `negative` whose text names the cited call's scope without absolute wording
 * ({@link checkNegativeClaim}, else `UNSCOPED_NEGATIVE_CLAIM`) and says nothing beyond the
 * absence (`NEGATIVE_CLAIM_BEYOND_ABSENCE`); a negative claim may cite only NO_EVIDENCE records
 * (`NOT_NO_EVIDENCE`) and is released in the harness's wording (`ClaimCheck.scopedText`).
 * `pattern`, `document` and `row` citations must cite a log, knowledge and MySQL call
 * respectively (`CITATION_KIND_MISMATCH`, {@link CitationToolPolicy}). A bare row index is
 * `ROW_REF_TOO_WEAK`: rows are cited by `column=value` / `rows[i].column=value`. A SQL cell (row or excerpt)
 * counts only when its column's `origin` is `table`; a cell computed from statement literals is
 * `LITERAL_CELL`. Any store
 * failure fails the whole draft closed (`STORE_UNAVAILABLE`).
 */
export const evidenceGuard = (input: {
  readonly runId: RunId | string
  readonly draft: DraftReport
  /** Which tools may back `document`, `pattern` and `row` citations (defaults: knowledge, logs, MySQL). */
  readonly citationTools?: CitationToolPolicy
}): Effect.Effect<EvidenceGuardResult, never, CanonicalInvocationStore> =>
  Effect.gen(function* () {
    const store = yield* CanonicalInvocationStore
    const { draft } = input
    const policy = input.citationTools ?? {}
    const runId = input.runId as RunId
    const lookups = new Map<string, Lookup>()
    let storeAvailable = true

    const ids: string[] = []
    for (const claim of draft.claims) for (const c of claim.citations) ids.push(c.tool_call_id)

    for (const id of ids) {
      if (lookups.has(id) || !storeAvailable) continue
      if (!isValidId(id) || !isValidId(runId)) {
        lookups.set(id, { _tag: "Invalid" })
        continue
      }
      const read = yield* store.get(runId, id as ToolCallId).pipe(
        Effect.map(
          (o): Lookup =>
            Option.isSome(o) && o.value.runId === runId && o.value.toolCallId === id
              ? { _tag: "Found", record: o.value }
              : { _tag: "Missing" }
        ),
        Effect.catchCause(() => Effect.succeed<Lookup>({ _tag: "StoreDown" }))
      )
      if (read._tag === "StoreDown") storeAvailable = false
      lookups.set(id, read)
    }

    const failures: CitationFailure[] = []
    const evidence = new Map<string, CitedEvidence>()
    const claims: ClaimCheck[] = draft.claims.map((claim, claimIndex) => {
      const negative = claim.negative === true
      const claimFailures: CitationFailure[] = []
      if (!storeAvailable) {
        claimFailures.push({ claimIndex, toolCallId: null, kind: null, reason: "STORE_UNAVAILABLE" })
      } else if (claim.citations.length === 0) {
        claimFailures.push({ claimIndex, toolCallId: null, kind: null, reason: "NO_CITATIONS" })
      } else {
        for (const citation of claim.citations) {
          const lookup = lookups.get(citation.tool_call_id) ?? { _tag: "Missing" }
          const { reason } = checkCitation(lookup, citation, { text: claim.text, negative }, policy)
          if (reason !== null) {
            claimFailures.push({
              claimIndex,
              toolCallId: citation.tool_call_id.slice(0, 128),
              kind: citation.kind,
              reason
            })
          } else if (lookup._tag === "Found" && lookup.record.status === "READY") {
            const r = lookup.record
            if (!evidence.has(r.toolCallId)) {
              evidence.set(r.toolCallId, {
                toolCallId: r.toolCallId,
                toolName: r.toolName,
                evidenceStatus: r.evidenceStatus,
                agentResult: r.agentResult
              })
            }
          }
        }
      }
      failures.push(...claimFailures)
      const passed = claimFailures.length === 0
      return {
        claimIndex,
        negative,
        passed,
        failures: claimFailures,
        scopedText: negative && passed ? scopedTextOf(claim.citations, lookups) : null
      }
    })
    if (draft.claims.length === 0) {
      failures.push({ claimIndex: null, toolCallId: null, kind: null, reason: "NO_CLAIMS" })
    }
    return {
      passed: storeAvailable && failures.length === 0,
      storeAvailable,
      claims,
      failures,
      evidence: storeAvailable ? [...evidence.values()] : []
    }
  })

import type { JsonObject } from "@aiops-harness/core"
import type { Claim, DraftReport } from "@aiops-harness/guards"
import { affectedClaims, affectedServices, listOf } from "./affected.js"
import { type Analysis, analyze } from "./analysis.js"
import { windowRowClaims } from "./sql.js"
import { clip, isObject, type Seen, str } from "./conversation.js"
import {
  type DocHit,
  mitigationSection,
  overlap,
  type PatternHit,
  salientTerms,
  servicesIn,
  severity,
  stepsOf
} from "./signals.js"

/** Where (upper-case) SQL text starts in a log template (a slow-query log line carries its statement). */
const SQL_START =
  /\b(?:SELECT\s[\s\S]*?\bFROM\s+`?(\w+)|(?:INSERT\s+(?:IGNORE\s+)?|REPLACE\s+)INTO\s+`?(\w+)|UPDATE\s+`?(\w+)`?\s+SET\b|DELETE\s+FROM\s+`?(\w+))/

/**
 * A verbatim quotation of `text` for a claim: at most `max` characters (cut at a word), cut
 * before any inner double quote, with the ellipsis outside the quotes so the quoted part occurs
 * in the evidence. SQL statements are not quoted (released text is redacted again, and SQL
 * text would turn every later literal of the report into a placeholder): the quotation stops
 * before the statement and says whether it reads or writes which table.
 */
export const quote = (text: string, max = 160): string => {
  const flat = text.replace(/\s+/g, " ").trim()
  const sql = SQL_START.exec(flat)
  const plain = sql ? flat.slice(0, sql.index) : flat
  const inner = plain.split('"')[0] ?? ""
  let cut = inner.trimEnd()
  if (cut.length > max) {
    const head = cut.slice(0, max)
    const space = head.lastIndexOf(" ")
    cut = (space >= max / 2 ? head.slice(0, space) : head).replace(/[\s,;:]+$/, "")
  }
  const statement = sql
    ? `(a ${sql[0].startsWith("SELECT") ? "read" : "write"} on ${sql.slice(1).find((t) => t !== undefined) ?? "a table"})`
    : ""
  if (cut.replace(/\s+/g, "").length === 0) return statement || '""'
  return `"${cut}"${cut.length < flat.length ? "…" : ""}${statement ? ` ${statement}` : ""}`
}

const lines = (p: PatternHit) => `${p.count} ${p.level} log line${p.count === 1 ? "" : "s"}`
const window = (p: PatternHit) => `between ${p.firstSeen || "?"} and ${p.lastSeen || "?"}`
const section = (d: DocHit) => d.breadcrumb.split(">").at(-1)?.trim() || d.documentId

const patternClaim = (p: PatternHit, text: string): Claim => ({
  text,
  citations: [{ tool_call_id: p.toolCallId, kind: "pattern", ref: p.patternId }]
})

/** A READY, NO_EVIDENCE `query_logs` observation with its call id and scope. */
const emptyLogScope = (o: JsonObject): { id: string; scope: JsonObject } | null => {
  const id = str(o.tool_call_id)
  const scope = isObject(o.scope) ? o.scope : null
  if (!id || o.status !== "READY" || o.evidence_status !== "NO_EVIDENCE" || o.tool !== "query_logs" || !scope)
    return null
  return { id, scope }
}

const negativeClaim = ({ id, scope }: { id: string; scope: JsonObject }): Claim => {
  const service = str(scope.service)
  return {
    text: `No ${str(scope.topic) ?? ""} logs matched query "${clip(str(scope.query) ?? "", 80)}"${
      service ? ` for ${service}` : ""
    } between ${str(scope.start_time) ?? "?"} and ${str(scope.end_time) ?? "?"}.`,
    negative: true,
    citations: [{ tool_call_id: id, kind: "no_evidence", ref: "" }]
  }
}

/** Scoped negative statements for the log queries that found nothing (never "the fault does not exist"). */
const negativeClaims = (observations: ReadonlyArray<JsonObject>): Claim[] =>
  observations.flatMap((o): Claim[] => {
    const empty = emptyLogScope(o)
    return empty ? [negativeClaim(empty)] : []
  })

/** What a log query looked for, in words: `error or warning` for a level-only query, else the query. */
const lookedFor = (topic: string, query: string): string => {
  const clauses = query.split(/\s+OR\s+/i).map((c) => c.trim())
  const levels = clauses.map((c) => /^level:\s*"?([a-z]+)"?$/i.exec(c)?.[1]?.toUpperCase() ?? null)
  if (levels.length > 0 && levels.every((l) => l !== null)) {
    const words = [
      ...new Set(
        (levels as string[]).map((l) =>
          severity(l) >= 2 ? "error" : severity(l) === 1 ? "warning" : l.toLowerCase()
        )
      )
    ]
    const list = words.length > 1 ? `${words.slice(0, -1).join(", ")} or ${words.at(-1)}` : (words[0] ?? "")
    return `${list}${topic && topic !== "application" ? ` ${topic}` : ""} logs`
  }
  return `${topic || "application"} logs matching query "${clip(query, 80)}"`
}

const windowMinutes = (scope: JsonObject): number | null => {
  const start = Date.parse(str(scope.start_time) ?? "")
  const end = Date.parse(str(scope.end_time) ?? "")
  return Number.isFinite(start) && Number.isFinite(end) && end > start
    ? Math.round((end - start) / 60_000)
    : null
}

/**
 * The service the user asked about, when its own logs showed nothing while another service
 * shows the problem: the question names it (or else the first service-scoped log query was for
 * it), a READY NO_EVIDENCE log query was scoped to it, and no problem pattern of any query comes
 * from it. Returns the lead sentence for the summary and the scoped negative claim to keep.
 */
const askedScopeEmpty = (
  seen: Seen,
  patterns: ReadonlyArray<PatternHit>,
  evidenceService: string
): { lead: string; claim: Claim } | null => {
  const scoped = seen.observations.filter(
    (o) => o.tool === "query_logs" && isObject(o.scope) && str(o.scope.service)
  )
  const asked =
    servicesIn(seen.question)[0] ??
    (scoped[0] && isObject(scoped[0].scope) ? str(scoped[0].scope.service)?.toLowerCase() : undefined)
  if (!asked || asked === evidenceService.toLowerCase()) return null
  if (patterns.some((p) => severity(p.level) > 0 && p.service.toLowerCase() === asked)) return null
  const empty = scoped
    .map(emptyLogScope)
    .find((e) => e !== null && (str(e.scope.service) ?? "").toLowerCase() === asked)
  if (!empty) return null
  const minutes = windowMinutes(empty.scope)
  const service = str(empty.scope.service) ?? asked
  const lead =
    `No ${lookedFor(str(empty.scope.topic) ?? "", str(empty.scope.query) ?? "")} from ${service} ` +
    (minutes !== null
      ? `in the last ${minutes} minute${minutes === 1 ? "" : "s"}`
      : `between ${str(empty.scope.start_time) ?? "?"} and ${str(empty.scope.end_time) ?? "?"}`) +
    `. The problem evidence is in ${evidenceService}:`
  return { lead, claim: negativeClaim(empty) }
}

const rowClaims = (observations: ReadonlyArray<JsonObject>): Claim[] =>
  observations.flatMap((o): Claim[] => {
    const id = str(o.tool_call_id)
    if (!id || o.status !== "READY" || o.evidence_status !== "EVIDENCE_FOUND") return []
    if (!Array.isArray(o.rows) || o.rows.length === 0 || !isObject(o.rows[0])) return []
    const entries = Object.entries(o.rows[0])
    const first = entries
      .slice(0, 4)
      .map(([k, v]) => `${k}=${String(v)}`)
      .join(", ")
    // A row citation names a cell (`rows[i].column=value`); a bare index would prove nothing.
    const [column, value] = entries[0] ?? []
    if (column === undefined) return []
    return [
      {
        text: `Context — a read-only query on ${str(o.datasource) ?? "the database"} returned ${o.rows.length} row(s), the first being ${clip(first, 200)}.`,
        citations: [{ tool_call_id: id, kind: "row", ref: `rows[0].${column}=${String(value)}` }]
      }
    ]
  })

const firstSentence = (s: string): string => {
  const flat = s
    .split("\n")
    .map((line) => line.replace(/^\s*(?:[-*+]|\d+[.)])\s+/, "").trim())
    .filter((line) => line.length > 0)
    .join(" ")
  const sentence = /^[\s\S]{20,}?[.!?。](?=\s|$)/.exec(flat)?.[0] ?? flat
  return clip(sentence.trim(), 200)
}

/** Only runbooks were consulted (no log tool was offered or reached): say what they say, nothing more. */
const knowledgeOnly = (a: Analysis): Claim[] =>
  a.docs.slice(0, 2).map((d) => ({
    text: `Runbook "${d.title}" (${d.relevance || "?"} relevance) says: ${firstSentence(d.excerpt)}`,
    citations: [{ tool_call_id: d.toolCallId, kind: "document" as const, ref: d.documentId }]
  }))

const NOTHING: DraftReport = {
  summary: "The observations contain no evidence that supports a cause.",
  claims: [],
  next_steps: ["Widen the time window or name the affected service, then ask again."]
}

/**
 * A cited draft from the evidence actually observed. With a dominant problem signature in the
 * logs: the signature, the runbook section that describes it, corroborating signals the runbook
 * names, and the runbook's own mitigation steps; the summary names the most likely cause only
 * as far as those citations go. Without log evidence: no claims at all, unless no logs could be
 * read (no log tool offered or reached), then what the runbooks say (and no more); not for a
 * window out of the tools' reach, which runbooks say nothing about.
 */
export const draftFrom = (seen: Seen, maxClaims: number): DraftReport => {
  const a = analyze(seen)
  const negatives = negativeClaims(seen.observations)
  const cause = a.cause
  if (!cause) {
    const logsRead = seen.observations.some((o) => o.tool === "query_logs")
    // A window the tools cannot reach is not answered from runbooks: they say nothing about it.
    const positive = logsRead || seen.window === "unreachable" ? [] : knowledgeOnly(a)
    // No evidence, no claims at all: the bounded cannot-conclude answer lists what was checked.
    if (positive.length === 0) return NOTHING
    return {
      summary: `No logs were read; what the knowledge base says — ${positive[0]!.text}`,
      claims: [...positive, ...negatives].slice(0, maxClaims),
      next_steps: ["Check the service's logs for the log pattern the cited runbook describes before acting."]
    }
  }

  const claims: Claim[] = []
  const symptom = a.symptom
  // Honest scope: when the asked service's own logs showed nothing, say so first, and keep the
  // scoped negative claim next to the evidence (never cut by `maxClaims`).
  const elsewhere = askedScopeEmpty(seen, a.patterns, symptom?.service ?? cause.service)
  const negativesRest = elsewhere
    ? negatives.filter((n) => n.citations[0]?.tool_call_id !== elsewhere.claim.citations[0]?.tool_call_id)
    : negatives
  const withNegatives = (positive: Claim[]): Claim[] =>
    elsewhere
      ? [positive[0]!, elsewhere.claim, ...positive.slice(1), ...negativesRest].slice(0, maxClaims)
      : [...positive, ...negativesRest].slice(0, maxClaims)
  const viaDependency = a.dependencyPattern !== null && symptom !== null && symptom !== cause
  claims.push(
    patternClaim(
      cause,
      `Dominant problem pattern in the ${cause.topic || "application"} logs — ${lines(cause)} from ${cause.service} match ${quote(cause.template)} ${window(cause)}.`
    )
  )
  if (viaDependency && symptom) {
    claims.push(
      patternClaim(
        symptom,
        `${symptom.service} shows the failure upstream — ${lines(symptom)} match ${quote(symptom.template)} ${window(symptom)}, naming ${a.dependency} as the dependency that fails.`
      )
    )
  }
  const match = a.match
  if (match) {
    const citations: Claim["citations"] = [
      { tool_call_id: match.section.toolCallId, kind: "document", ref: match.section.documentId }
    ]
    let pointer = ""
    if (match.referencedFrom) {
      citations.push({
        tool_call_id: match.referencedFrom.toolCallId,
        kind: "document",
        ref: match.referencedFrom.documentId
      })
      pointer = `; runbook "${match.referencedFrom.title}" lists the same log pattern and refers to it`
    }
    claims.push({
      text: `Runbook "${match.title}" (${section(match.section)}) describes this log pattern — ${quote(match.line, 200)}${pointer}.`,
      citations
    })
  }
  claims.push(...affectedClaims(a, (text) => quote(text)))
  const runbookDocs = match ? a.docs.filter((d) => d.runbook === match.runbook) : []
  const corroborating = a.corroborating.slice(0, 2)
  for (const p of corroborating) {
    const terms = salientTerms(p.template)
    const doc = [...runbookDocs].sort(
      (x, y) => overlap(terms, y.excerpt).score - overlap(terms, x.excerpt).score
    )[0]
    claims.push({
      text: `Corroborating signal in the ${p.topic || "other"} logs — ${lines(p)} from ${p.service} match ${quote(p.template)} ${window(p)}${
        doc && match ? `; runbook "${match.title}" lists this signal` : ""
      }.`,
      citations: [
        { tool_call_id: p.toolCallId, kind: "pattern", ref: p.patternId },
        ...(doc ? [{ tool_call_id: doc.toolCallId, kind: "document" as const, ref: doc.documentId }] : [])
      ]
    })
  }
  // the offline model's windowed database check, else what any other query returned
  const windowed = windowRowClaims(seen)
  claims.push(...(windowed.length > 0 ? windowed : rowClaims(seen.observations)))

  const evidenceLine = `${lines(cause)} from ${cause.service} match ${quote(cause.template, 100)} ${window(cause)}`
  const upstream =
    viaDependency && symptom
      ? `; ${symptom.service} errors (${quote(symptom.template, 80)}) point to ${a.dependency}`
      : ""
  const corroborated =
    corroborating.length > 0
      ? `; corroborated by ${corroborating
          .map(
            (p) =>
              `${p.count} ${p.level} ${p.topic || "other"} line${p.count === 1 ? "" : "s"} from ${p.service} (${quote(p.template, 60)})`
          )
          .join(" and ")}`
      : ""

  if (!match) {
    return {
      summary: clip(
        `${elsewhere ? `${elsewhere.lead} most likely lead` : "Most likely lead"} (no retrieved runbook explains it) — ${evidenceLine}${upstream}. The logs show this failure pattern; the evidence does not establish what causes it.`,
        4000
      ),
      claims: withNegatives(claims),
      next_steps: [
        `Look up the log pattern ${quote(cause.template, 100)} in the runbooks or the service's code.`,
        `Check deploys and dependency changes of ${cause.service} shortly before ${cause.firstSeen || "the first occurrence"}.`
      ]
    }
  }

  const mitigation = mitigationSection(match.runbook, a.docs)
  const steps = mitigation ? stepsOf(mitigation.excerpt) : []
  const nextSteps =
    steps.length > 0
      ? [...steps, `Verify after each change that this log pattern stops growing in ${cause.service} logs.`]
      : [
          `Follow runbook "${match.title}" (${match.runbook}); its mitigation section was not among the retrieved excerpts.`,
          `Verify after each change that this log pattern stops growing in ${cause.service} logs.`
        ]
  const summary =
    `${elsewhere ? `${elsewhere.lead} most likely cause` : "Most likely cause"}: ${match.title}, affecting ${listOf(affectedServices(a, cause))}. ` +
    `The evidence supports it — ${evidenceLine}, the log pattern runbook "${match.title}" describes${upstream}${corroborated}.` +
    (mitigation ? ` Next steps are taken from that runbook's "${section(mitigation)}" section.` : "")
  return {
    summary: clip(summary, 4000),
    claims: withNegatives(claims),
    next_steps: nextSteps.map((s) => clip(s, 500)).slice(0, 6)
  }
}

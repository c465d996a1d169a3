import { refPresent } from "@aiops-harness/guards"
import type { ChatMessage } from "../model.js"
import { isObject, parseObject, str } from "./conversation.js"
import type { JsonObject } from "@aiops-harness/core"

/** Double-quoted fragments of a claim long enough to be checked as excerpts. */
const quotedFragments = (text: string): string[] =>
  [...text.matchAll(/"([^"]*)"/g)].map((m) => m[1]!.trim()).filter((q) => q.replace(/\s+/g, " ").length >= 8)

/**
 * The deterministic semantic judge: a claim is SUPPORTED only when it cites something, every
 * cited ref is present in the evidence it was given (NO_EVIDENCE only for negative claims),
 * and every quotation of a positive claim occurs verbatim in its cited evidence; a claim whose
 * refs hold but whose quotation does not is PARTIALLY_SUPPORTED. The summary is SUPPORTED when
 * every claim is, a positive claim exists, and its quotations occur in the evidence given (as text, or as a document id).
 */
export const judge = (messages: ReadonlyArray<ChatMessage>): string => {
  const last = [...messages].reverse().find((m) => m.role === "user")
  const input = last && last.role === "user" ? parseObject(last.content) : null
  const claims = input && Array.isArray(input.claims) ? input.claims.filter(isObject) : []
  const evidence = new Map<string, JsonObject>()
  if (input && Array.isArray(input.evidence)) {
    for (const e of input.evidence.filter(isObject)) {
      const id = str(e.tool_call_id)
      if (id) evidence.set(id, e)
    }
  }
  const verdicts = claims.map((claim, claim_index) => {
    const citations = Array.isArray(claim.citations) ? claim.citations.filter(isObject) : []
    const cited = citations.map((c) => evidence.get(str(c.tool_call_id) ?? ""))
    const refsHold =
      citations.length > 0 &&
      citations.every((c, i) => {
        const e = cited[i]
        if (!e) return false
        const kind = str(c.kind) ?? ""
        if (kind === "no_evidence") return claim.negative === true && e.evidence_status === "NO_EVIDENCE"
        return isObject(e.observation) && refPresent(e.observation, kind, str(c.ref) ?? "")
      })
    if (!refsHold) {
      return { claim_index, verdict: "UNSUPPORTED", reason: "a cited ref is missing from the evidence" }
    }
    const observations = cited.flatMap((e) => (e && isObject(e.observation) ? [e.observation] : []))
    const unquoted =
      claim.negative === true
        ? []
        : quotedFragments(str(claim.text) ?? "").filter(
            (q) => !observations.some((o) => refPresent(o, "excerpt", q))
          )
    return unquoted.length === 0
      ? {
          claim_index,
          verdict: "SUPPORTED",
          reason: "every cited ref and quotation is present in the evidence"
        }
      : {
          claim_index,
          verdict: "PARTIALLY_SUPPORTED",
          reason: "the cited refs exist, but a quotation is not in the cited evidence"
        }
  })
  // The summary states the cause: SUPPORTED only when every claim is, some positive claim
  // carries it (negative claims never do), and its quotations occur in the evidence given (as text, or as a document id).
  const summary = input ? (str(input.summary) ?? "") : ""
  const everything = [...evidence.values()].flatMap((e) => (isObject(e.observation) ? [e.observation] : []))
  const summary_verdict =
    !verdicts.every((v) => v.verdict === "SUPPORTED") || !claims.some((c) => c.negative !== true)
      ? "UNSUPPORTED"
      : quotedFragments(summary).every((q) =>
            everything.some((o) => refPresent(o, "excerpt", q) || refPresent(o, "document", q))
          )
        ? "SUPPORTED"
        : "PARTIALLY_SUPPORTED"
  return JSON.stringify({ verdicts, summary_verdict })
}

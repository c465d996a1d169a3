import type { Json, Projection, Projector } from "@aiops-harness/core"
import { ProjectionError } from "@aiops-harness/core"
import { byteBudget, fromResult, normalizeQuery, parseStrict } from "./common.js"
import { boundToBytes, cutText, type ToolProjectionLimits, resolveLimits } from "./limits.js"
import { redactSecrets, redactText } from "./redaction/index.js"
import { type KnowledgeRequest, KnowledgeRawSchema, type RelevanceLevel } from "./schemas.js"

/** One evidence block as the agent sees it. */
export interface KnowledgeEvidenceObservation {
  readonly document_id: string
  readonly source: string | null
  readonly title: string | null
  readonly breadcrumb: string | null
  readonly excerpt: string
  readonly relevance_level: RelevanceLevel | null
}

const nonBlank = (text: string | undefined): string | null => {
  const trimmed = text?.trim() ?? ""
  return trimmed === "" ? null : trimmed
}

/**
 * `lookup_knowledge` projector: keeps evidence blocks with non-blank content, gives each a
 * stable `document_id` (source, else title, else `doc-<n>` by position in the raw response),
 * dedupes by document id keeping the first excerpt, redacts and bounds excerpts, and drops
 * traces, raw scores and context packs. `REFERENCE` is still `EVIDENCE_FOUND`; nothing left ->
 * `NO_EVIDENCE`.
 */
export const projectKnowledge = (
  overrides?: Partial<ToolProjectionLimits>
): Projector<KnowledgeRequest, unknown> => {
  const limits = resolveLimits(overrides)
  return (input) =>
    fromResult(() => {
      const raw = parseStrict(KnowledgeRawSchema, input.raw)
      if (raw instanceof ProjectionError) return raw
      const seen = new Set<string>()
      const kept: KnowledgeEvidenceObservation[] = []
      let cut = false
      for (let i = 0; i < raw.evidence.length; i++) {
        const block = raw.evidence[i]!
        const content = block.content.trim()
        if (content === "") continue
        const camel = block.relevanceLevel
        const snake = block.relevance_level
        if (camel !== undefined && snake !== undefined && camel !== snake) {
          return new ProjectionError({
            reason: "UNEXPECTED_SHAPE",
            detail: `evidence.${i}: relevanceLevel and relevance_level disagree`
          })
        }
        const source = nonBlank(block.source)
        const title = nonBlank(block.title)
        const safeSource = source === null ? null : redactSecrets(source)
        const safeTitle = title === null ? null : redactSecrets(title)
        const documentId = safeSource ?? safeTitle ?? `doc-${i + 1}`
        if (seen.has(documentId)) continue
        seen.add(documentId)
        if (kept.length >= limits.maxItems) {
          cut = true
          continue
        }
        const breadcrumb = Array.isArray(block.breadcrumb)
          ? nonBlank(block.breadcrumb.map((part) => part.trim()).join(" > "))
          : nonBlank(block.breadcrumb)
        const redacted = redactText(content)
        const excerpt = cutText(redacted, limits.maxExcerptChars)
        if (excerpt.length < redacted.length) cut = true
        kept.push({
          document_id: documentId,
          source: safeSource,
          title: safeTitle,
          breadcrumb: breadcrumb === null ? null : redactSecrets(breadcrumb),
          excerpt,
          relevance_level: camel ?? snake ?? null
        })
      }

      const query = redactSecrets(input.request.query)
      const build = (counts: ReadonlyArray<number>) => ({
        query,
        evidence: kept.slice(0, counts[0]) as unknown as Json
      })
      const bounded = boundToBytes(
        [{ items: kept }],
        build,
        byteBudget(limits, input.maxBytes),
        kept.length > 0
      )
      if (bounded instanceof ProjectionError) return bounded
      const projection: Projection = {
        evidenceStatus: bounded.counts[0]! > 0 ? "EVIDENCE_FOUND" : "NO_EVIDENCE",
        observation: build(bounded.counts),
        truncated: cut || bounded.dropped,
        returnedCount: raw.evidence.length,
        scope: { query: normalizeQuery(input.request.query), top_k: input.request.top_k ?? null }
      }
      return projection
    })
}

import { z } from "zod"

/** What a citation points at in the cited tool result (`no_evidence` backs a negative claim). */
export const CITATION_KINDS = ["document", "pattern", "excerpt", "row", "no_evidence"] as const
/** Kind of a citation (one of `CITATION_KINDS`). */
export type CitationKind = (typeof CITATION_KINDS)[number]

/** One citation of a draft claim (model output, snake_case). Nothing in it is trusted. */
export const CitationSchema = z.object({
  tool_call_id: z.string().min(1).max(256),
  kind: z.enum(CITATION_KINDS),
  ref: z.string().max(2000).default("")
})
/** One citation of a draft claim, as parsed (untrusted). */
export type Citation = z.infer<typeof CitationSchema>

/** Zod schema of one draft claim: its text, whether it is negative, and its citations. */
export const ClaimSchema = z.object({
  text: z.string().min(1).max(2000),
  /** A scoped negative statement ("no matching logs in this window/topic/query"). */
  negative: z.boolean().optional(),
  citations: z.array(CitationSchema).max(20).default([])
})
/** One claim of a draft report, as parsed (untrusted). */
export type Claim = z.infer<typeof ClaimSchema>

/** The draft report a model produces before the guards decide whether it may be released. */
export const DraftReportSchema = z.object({
  summary: z.string().max(4000).default(""),
  claims: z.array(ClaimSchema).max(20).default([]),
  next_steps: z.array(z.string().max(500)).max(10).optional()
})
/** The draft report a model produces, as parsed (untrusted until the guards pass it). */
export type DraftReport = z.infer<typeof DraftReportSchema>

/**
 * Parses model text into a draft: accepts bare JSON, JSON inside a fenced block, or JSON
 * surrounded by prose (first `{` to last `}`). `null` when nothing valid is found.
 */
export const parseDraftReport = (text: string | null | undefined): DraftReport | null => {
  if (!text) return null
  const candidates: string[] = []
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text)
  if (fenced?.[1]) candidates.push(fenced[1])
  candidates.push(text)
  const first = text.indexOf("{")
  const last = text.lastIndexOf("}")
  if (first >= 0 && last > first) candidates.push(text.slice(first, last + 1))
  for (const candidate of candidates) {
    try {
      const parsed = DraftReportSchema.safeParse(JSON.parse(candidate.trim()))
      if (parsed.success) return parsed.data
    } catch {
      // try the next candidate
    }
  }
  return null
}

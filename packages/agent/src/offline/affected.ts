/**
 * Every service the evidence shows affected, not only the one that carries the cause: another
 * service whose own dominant application error the matched runbook describes fails the same way.
 */
import type { Claim } from "@aiops-harness/guards"
import type { Analysis } from "./analysis.js"
import type { PatternHit } from "./signals.js"

/** The services to name in the summary: the cause's first, then the other affected ones. */
export const affectedServices = (a: Analysis, cause: PatternHit): string[] => [
  ...new Set([cause.service, ...a.affected.map((p) => p.service)])
]

/** `a`, `a and b`, `a, b and c`. */
export const listOf = (names: ReadonlyArray<string>): string =>
  names.length <= 1 ? (names[0] ?? "") : `${names.slice(0, -1).join(", ")} and ${names.at(-1)}`

/**
 * One cited claim per other affected service (at most `max`): its own lines of the failure.
 * `quote` is the draft's verbatim quotation (passed in: the draft imports this module).
 */
export const affectedClaims = (a: Analysis, quote: (text: string) => string, max = 2): Claim[] =>
  a.affected.slice(0, max).map((p) => ({
    text: `${p.service} is affected too — ${p.count} ${p.level} log line${p.count === 1 ? "" : "s"} from ${p.service} match ${quote(p.template)} between ${p.firstSeen || "?"} and ${p.lastSeen || "?"}${a.match ? `, a failure runbook "${a.match.title}" describes` : ""}.`,
    citations: [
      { tool_call_id: p.toolCallId, kind: "pattern" as const, ref: p.patternId },
      ...(a.match
        ? [
            {
              tool_call_id: a.match.section.toolCallId,
              kind: "document" as const,
              ref: a.match.section.documentId
            }
          ]
        : [])
    ]
  }))

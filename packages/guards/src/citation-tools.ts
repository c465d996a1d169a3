import type { CitationKind } from "./draft.js"
import { DEFAULT_KNOWLEDGE_TOOLS } from "./release.js"

/** Log tools: the only ones whose results carry log patterns (`pattern_id`). */
export const DEFAULT_LOG_TOOLS: ReadonlySet<string> = new Set(["query_logs"])
/** MySQL tools: the only ones whose results carry rows. */
export const DEFAULT_MYSQL_TOOLS: ReadonlySet<string> = new Set(["query_mysql"])

/**
 * Which tools may back which citation kind. A `pattern` is only a log call's pattern, a
 * `document` only a knowledge call's document, a `row` only a MySQL call's row: otherwise a
 * query could forge one (`SELECT 'p1a2b3c4' AS pattern_id ...`) and have it cited as a log
 * pattern or a runbook. `excerpt` and `no_evidence` may cite any tool.
 */
export interface CitationToolPolicy {
  /** Default {@link DEFAULT_KNOWLEDGE_TOOLS} (`lookup_knowledge`). */
  readonly documentTools?: ReadonlySet<string>
  /** Default {@link DEFAULT_LOG_TOOLS} (`query_logs`). */
  readonly patternTools?: ReadonlySet<string>
  /** Default {@link DEFAULT_MYSQL_TOOLS} (`query_mysql`). */
  readonly rowTools?: ReadonlySet<string>
}

/** Whether a citation of `kind` may cite a record of `toolName` (the stored record's tool). */
export const citationKindMatchesTool = (
  kind: CitationKind,
  toolName: string,
  policy: CitationToolPolicy = {}
): boolean => {
  switch (kind) {
    case "document":
      return (policy.documentTools ?? DEFAULT_KNOWLEDGE_TOOLS).has(toolName)
    case "pattern":
      return (policy.patternTools ?? DEFAULT_LOG_TOOLS).has(toolName)
    case "row":
      return (policy.rowTools ?? DEFAULT_MYSQL_TOOLS).has(toolName)
    default:
      return true
  }
}

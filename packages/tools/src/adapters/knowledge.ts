import type { JsonObject, ToolDefinition } from "@aiops-harness/core"
import { projectKnowledge, type ToolProjectionLimits } from "@aiops-harness/projectors"
import {
  type LookupKnowledgeRequest,
  LookupKnowledgeRequestSchema,
  TOOL_NAMES
} from "../contracts/requests.js"
import type { KnowledgeRaw } from "../contracts/results.js"
import { TOOL_DESCRIPTIONS } from "../contracts/specs.js"
import { KnowledgeSearch, type KnowledgeSearchShape } from "../knowledge/search.js"
import { normalizeText } from "./scope.js"

/** Options of the `lookup_knowledge` tool: its knowledge search and bounds. */
export interface LookupKnowledgeToolOptions {
  readonly search: KnowledgeSearchShape
  /** Projection limits (max items, excerpt characters, ...). */
  readonly limits?: Partial<ToolProjectionLimits>
  /** Upper bound of `top_k` whatever the model asks (default 10). */
  readonly maxTopK?: number
  readonly timeoutMillis?: number
}

/** `lookup_knowledge`: knowledge search + `projectKnowledge`. Read-only. */
export const lookupKnowledgeTool = (
  options: LookupKnowledgeToolOptions
): ToolDefinition<LookupKnowledgeRequest, KnowledgeRaw> => {
  const maxTopK = options.maxTopK ?? 10
  return {
    name: TOOL_NAMES.lookupKnowledge,
    description: TOOL_DESCRIPTIONS.lookup_knowledge,
    readOnly: true,
    requestSchema: LookupKnowledgeRequestSchema,
    execute: (request) =>
      options.search.search({ query: request.query, topK: Math.min(request.top_k, maxTopK) }),
    project: projectKnowledge(options.limits),
    scopeOf: (request): JsonObject => ({ query: normalizeText(request.query), top_k: request.top_k }),
    ...(options.timeoutMillis !== undefined ? { timeoutMillis: options.timeoutMillis } : {})
  }
}

/** {@link lookupKnowledgeTool} with the search taken from the `KnowledgeSearch` service. */
export const lookupKnowledgeToolFromContext = (options: Omit<LookupKnowledgeToolOptions, "search"> = {}) =>
  KnowledgeSearch.useSync((search) => lookupKnowledgeTool({ ...options, search }))

import { type JsonSchema, requestJsonSchema } from "@aiops-harness/core"
import type { z } from "zod"
import {
  LookupKnowledgeRequestSchema,
  QueryLogsRequestSchema,
  QueryMysqlRequestSchema,
  TOOL_NAMES,
  type ToolName
} from "./requests.js"

/** Re-exported from core, where the one JSON-schema generator lives. */
export { type JsonSchema, requestJsonSchema } from "@aiops-harness/core"

/** One model-facing tool declaration (OpenAI-compatible `function` shape). */
export interface ToolSpec {
  readonly name: ToolName
  readonly description: string
  readonly parameters: JsonSchema
}

/** The model-facing description of each built-in tool. */
export const TOOL_DESCRIPTIONS: { readonly [K in ToolName]: string } = {
  lookup_knowledge:
    "Search the operations runbooks and knowledge base. Returns bounded evidence blocks " +
    "(document_id, source, breadcrumb, excerpt, relevance_level).",
  query_logs:
    "Search one log topic within a time window ending now. Returns the actual scope, " +
    "aggregated message patterns and a sampled timeline; secrets, hosts and IPs are redacted.",
  query_mysql:
    "Run one read-only SELECT against an allowlisted datasource. Only allowlisted tables and " +
    "columns may be read; sensitive columns are masked and rows are bounded."
}

/** The request schema of each built-in tool, by tool name. */
export const REQUEST_SCHEMAS = {
  lookup_knowledge: LookupKnowledgeRequestSchema,
  query_logs: QueryLogsRequestSchema,
  query_mysql: QueryMysqlRequestSchema
} as const

/** Model-facing declarations of every tool, in a stable order. */
export const toolSpecs: ReadonlyArray<ToolSpec> = [
  TOOL_NAMES.lookupKnowledge,
  TOOL_NAMES.queryLogs,
  TOOL_NAMES.queryMysql
].map((name) => ({
  name,
  description: TOOL_DESCRIPTIONS[name],
  parameters: requestJsonSchema(REQUEST_SCHEMAS[name])
}))

/** The spec of a registered tool definition (same generator, for adapters with custom names). */
export const toolSpecOf = (tool: {
  readonly name: string
  readonly description: string
  readonly requestSchema: z.ZodType
}): { readonly name: string; readonly description: string; readonly parameters: JsonSchema } => ({
  name: tool.name,
  description: tool.description,
  parameters: requestJsonSchema(tool.requestSchema)
})

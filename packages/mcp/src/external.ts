import { BackendError, type JsonObject, type ToolDefinition } from "@aiops-harness/core"
import { cutText, redactText } from "@aiops-harness/projectors"
import type { Tool } from "@modelcontextprotocol/sdk/types.js"
import { Effect, type Scope } from "effect"
import { z } from "zod"
import { type ExternalServerConfig, exposedToolName, type McpConfig } from "./config.js"
import { DEFAULT_EXTERNAL_TIMEOUT_MS, type ExternalConnection, makeExternalConnection } from "./connection.js"
import { McpServerError } from "./errors.js"
import { type ExternalRaw, projectJson } from "./projector.js"

/** A zod schema from the server's JSON Schema (what the model sees), else any JSON object. */
const requestSchemaOf = (tool: Tool): z.ZodType<JsonObject> => {
  try {
    return z.fromJSONSchema(
      tool.inputSchema as Parameters<typeof z.fromJSONSchema>[0]
    ) as z.ZodType<JsonObject>
  } catch {
    return z.record(z.string(), z.json()) as unknown as z.ZodType<JsonObject>
  }
}

/** JSON round trip of a result: what the canonical record keeps (drops `undefined`, rejects cycles). */
const toRaw = (result: unknown): ExternalRaw => JSON.parse(JSON.stringify(result)) as ExternalRaw

/** The ToolDefinition of one allowed external tool: the config decides read-only, timeout and projector. */
export const externalToolDefinition = (options: {
  readonly server: string
  readonly serverConfig: ExternalServerConfig
  readonly tool: Tool
  readonly connection: ExternalConnection
}): ToolDefinition<JsonObject, ExternalRaw> => {
  const { server, serverConfig, tool, connection } = options
  const toolConfig = serverConfig.tools[tool.name]!
  const name = exposedToolName(server, tool.name)
  const timeoutMillis = toolConfig.timeoutMs ?? serverConfig.timeoutMs ?? DEFAULT_EXTERNAL_TIMEOUT_MS
  // A server's description is text from outside: redacted and bounded like any observation.
  const description =
    toolConfig.description ??
    cutText(redactText(tool.description ?? `Tool ${tool.name} of MCP server ${server}.`), 1024)
  return {
    name,
    description,
    readOnly: toolConfig.readOnly,
    requestSchema: requestSchemaOf(tool),
    timeoutMillis,
    execute: (request) =>
      Effect.tryPromise({
        try: async (signal) => {
          const client = await connection.client()
          // The boundary's timeout interrupts (signal -> notifications/cancelled); the SDK's own
          // timeout is a safety net just above it.
          const result = await client.callTool({ name: tool.name, arguments: request }, undefined, {
            signal,
            timeout: timeoutMillis + 1000
          })
          return toRaw(result)
        },
        catch: (cause) => new BackendError({ toolName: name, cause })
      }),
    project: projectJson({
      server,
      toolName: name,
      ...(toolConfig.projector || serverConfig.projector
        ? { config: { ...serverConfig.projector, ...toolConfig.projector } }
        : {})
    })
  }
}

/** The governed tools of every configured external server, ready for the ToolBoundary. */
export interface ExternalTools {
  /** Allowed tools of every server (read-only or not: the boundary refuses the others). */
  readonly tools: ReadonlyArray<ToolDefinition>
  /** Config entries the server does not offer (`server__tool`). */
  readonly missing: ReadonlyArray<string>
  /** Closes every server connection. */
  readonly close: () => Promise<void>
}

/**
 * Connects to every configured server, lists its tools and keeps only the allowed ones. A tool
 * the config does not list, or lists with `allowed: false`, is invisible. Fails with
 * `McpServerError` when a server cannot be reached or listed within its connect timeout.
 */
export const connectExternalTools = (config: McpConfig): Effect.Effect<ExternalTools, McpServerError> =>
  Effect.gen(function* () {
    const connections: ExternalConnection[] = []
    const closeAll = () => Promise.all(connections.map((c) => c.close())).then(() => undefined)
    const tools: ToolDefinition[] = []
    const missing: string[] = []
    for (const [server, serverConfig] of Object.entries(config.servers)) {
      const connection = makeExternalConnection(server, serverConfig)
      connections.push(connection)
      const timeout = serverConfig.connectTimeoutMs ?? DEFAULT_EXTERNAL_TIMEOUT_MS
      const client = yield* Effect.tryPromise({
        try: () => connection.client(),
        catch: (cause) =>
          new McpServerError({
            server,
            reason: cause instanceof Error && cause.message === "timeout" ? "TIMEOUT" : "CONNECT_FAILED",
            cause
          })
      }).pipe(Effect.tapError(() => Effect.promise(closeAll)))
      const listed = yield* Effect.tryPromise({
        try: () => client.listTools(undefined, { timeout }),
        catch: (cause) => new McpServerError({ server, reason: "LIST_FAILED", cause })
      }).pipe(Effect.tapError(() => Effect.promise(closeAll)))
      const offered = new Set(listed.tools.map((t) => t.name))
      for (const tool of listed.tools) {
        if (serverConfig.tools[tool.name]?.allowed !== true) continue
        tools.push(externalToolDefinition({ server, serverConfig, tool, connection }))
      }
      for (const name of Object.keys(serverConfig.tools)) {
        if (!offered.has(name)) missing.push(exposedToolName(server, name))
      }
    }
    return { tools, missing, close: closeAll }
  })

/** {@link connectExternalTools} whose connections close with the scope (a layer's lifetime). */
export const externalToolsScoped = (
  config: McpConfig
): Effect.Effect<ExternalTools, McpServerError, Scope.Scope> =>
  Effect.acquireRelease(connectExternalTools(config), (external) => Effect.promise(external.close))

import { readFile } from "node:fs/promises"
import { Effect, Redacted } from "effect"
import { z } from "zod"
import { McpConfigError } from "./errors.js"

const NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,31}$/
const TOOL_NAME = /^[A-Za-z0-9][A-Za-z0-9_-]{0,63}$/
/** Model-facing tool names are `<server>__<tool>` (OpenAI-compatible function names: <= 64). */
export const MAX_EXPOSED_NAME = 64

/** The generic JSON projector's settings (every field optional: per-tool values override the server's). */
export const JsonProjectorConfigSchema = z.strictObject({
  /**
   * Paths kept, dotted (`items.id`); arrays are traversed, so a path names the fields of their
   * items. A path's whole value is kept. Default: everything.
   */
  fields: z.array(z.string().min(1).max(128)).min(1).max(100).optional(),
  /** UTF-8 byte bound of the projected result (never above the run's per-call projection budget). */
  maxBytes: z.number().int().min(64).max(1_048_576).optional(),
  /** Items kept per array, at any depth. */
  maxItems: z.number().int().min(1).max(1000).optional(),
  /** Characters kept per string, after redaction. */
  maxStringChars: z.number().int().min(1).max(100_000).optional()
})
/** Settings of the generic JSON projector for an external tool. */
export type JsonProjectorConfig = z.infer<typeof JsonProjectorConfigSchema>

/** Zod schema of the harness's decision about one external tool: allowed, read-only, timeout, projector. */
export const ExternalToolConfigSchema = z.strictObject({
  /** Unlisted or `allowed: false` tools are invisible: never listed, never callable. */
  allowed: z.boolean(),
  /** The harness's decision (never the server's annotations): only read-only tools may run. */
  readOnly: z.boolean(),
  timeoutMs: z.number().int().min(1).max(600_000).optional(),
  /** Replaces the server's description (which is redacted and cut otherwise). */
  description: z.string().min(1).max(1024).optional(),
  projector: JsonProjectorConfigSchema.optional()
})
/** The harness's decision about one external tool. */
export type ExternalToolConfig = z.infer<typeof ExternalToolConfigSchema>

const serverBase = {
  /** Default call timeout of the server's tools (default 10000 ms). */
  timeoutMs: z.number().int().min(1).max(600_000).optional(),
  /** Connect + list timeout at startup (default 10000 ms). */
  connectTimeoutMs: z.number().int().min(1).max(600_000).optional(),
  /**
   * Largest message read from the server (default 20 MiB, above the default raw limit of a call):
   * a bigger one ends the call as `BACKEND_ERROR` and drops the connection, before it is
   * buffered whole. Results between the run's raw limit and this bound are `RAW_TOO_LARGE`.
   */
  maxMessageBytes: z
    .number()
    .int()
    .min(1024)
    .max(256 * 1024 * 1024)
    .optional(),
  /** Default projector of the server's tools. */
  projector: JsonProjectorConfigSchema.optional(),
  tools: z.record(
    z.string().regex(TOOL_NAME, "tool names: [A-Za-z0-9_-], at most 64"),
    ExternalToolConfigSchema
  )
}

/**
 * Environment variables / HTTP headers of a server: they carry tokens, so the parsed config holds
 * them `Redacted` (revealed only into the child process or the request); a logged config cannot
 * print them.
 */
const secretRecord = (label: string) =>
  z
    .record(z.string(), z.string())
    .transform(
      (values): Redacted.Redacted<Readonly<Record<string, string>>> => Redacted.make(values, { label })
    )

/** Zod schema of an external MCP server run as a child process (stdio). */
export const StdioServerConfigSchema = z.strictObject({
  ...serverBase,
  command: z.string().min(1),
  args: z.array(z.string()).default([]),
  env: secretRecord("env").optional(),
  cwd: z.string().min(1).optional()
})

/** Zod schema of an external MCP server reached over Streamable HTTP. */
export const HttpServerConfigSchema = z.strictObject({
  ...serverBase,
  url: z.url({ protocol: /^https?$/, error: "url: expected an http(s) URL" }),
  headers: secretRecord("headers").optional()
})

/** Zod schema of one external MCP server: stdio or Streamable HTTP. */
export const ExternalServerConfigSchema = z.union([StdioServerConfigSchema, HttpServerConfigSchema], {
  error: "a server needs either `command` (stdio) or `url` (Streamable HTTP), with `tools`"
})
/** One external MCP server and its governed tools. */
export type ExternalServerConfig = z.infer<typeof ExternalServerConfigSchema>

/** Zod schema of the governed external MCP servers configuration. */
export const McpConfigSchema = z
  .strictObject({
    servers: z.record(
      z.string().regex(NAME, "server names: [A-Za-z0-9_-], at most 32"),
      ExternalServerConfigSchema
    )
  })
  .superRefine((config, ctx) => {
    for (const [server, s] of Object.entries(config.servers)) {
      for (const tool of Object.keys(s.tools)) {
        if (exposedToolName(server, tool).length > MAX_EXPOSED_NAME) {
          ctx.addIssue({
            code: "custom",
            path: ["servers", server, "tools", tool],
            message: `"${server}__${tool}" is longer than ${MAX_EXPOSED_NAME} characters`
          })
        }
      }
    }
  })
/** The governed external MCP servers configuration. */
export type McpConfig = z.infer<typeof McpConfigSchema>

/** The name the agent sees for `tool` of `server`. */
export const exposedToolName = (server: string, tool: string): string => `${server}__${tool}`

/**
 * `path: message` lines. A server that matches neither transport reports the issues of the
 * transport it came closest to (fewest issues), not just "invalid input".
 */
const issueLines = (issues: ReadonlyArray<z.core.$ZodIssue>, prefix: ReadonlyArray<PropertyKey>): string[] =>
  issues.flatMap((issue) => {
    const path = [...prefix, ...issue.path]
    if (issue.code === "invalid_union" && issue.errors.length > 0) {
      const closest = [...issue.errors].sort((a, b) => a.length - b.length)[0]!
      return issueLines(closest, path)
    }
    return [`${path.map(String).join(".") || "(root)"}: ${issue.message}`]
  })

/** Validates a parsed config. Issues name the path; values (commands, env, headers) are never echoed. */
export const parseMcpConfig = (
  value: unknown,
  source = "config"
): Effect.Effect<McpConfig, McpConfigError> => {
  const parsed = McpConfigSchema.safeParse(value)
  if (parsed.success) return Effect.succeed(parsed.data)
  return Effect.fail(new McpConfigError({ source, issues: issueLines(parsed.error.issues, []).slice(0, 20) }))
}

/** Reads and validates a JSON config file. */
export const loadMcpConfigFile = (path: string): Effect.Effect<McpConfig, McpConfigError> =>
  Effect.gen(function* () {
    const text = yield* Effect.tryPromise({
      try: () => readFile(path, "utf8"),
      catch: () => new McpConfigError({ source: path, issues: ["cannot read the file"] })
    })
    const value = yield* Effect.try({
      try: () => JSON.parse(text) as unknown,
      catch: () => new McpConfigError({ source: path, issues: ["not valid JSON"] })
    })
    return yield* parseMcpConfig(value, path)
  })

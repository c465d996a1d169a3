import { Data } from "effect"

/** The external-server config is unusable: `source` is the file (or `config`), `issues` say where and why. */
export class McpConfigError extends Data.TaggedError("McpConfigError")<{
  readonly source: string
  readonly issues: ReadonlyArray<string>
}> {
  override get message() {
    return `${this.source}: ${this.issues.join("; ")}`
  }
}

/**
 * An external MCP server could not be reached or listed at startup. `reason` is stable
 * (`CONNECT_FAILED`, `LIST_FAILED`, `TIMEOUT`); `cause` is internal only.
 */
export class McpServerError extends Data.TaggedError("McpServerError")<{
  readonly server: string
  readonly reason: "CONNECT_FAILED" | "LIST_FAILED" | "TIMEOUT"
  readonly cause?: unknown
}> {
  override get message() {
    return `MCP server "${this.server}": ${this.reason}`
  }
}

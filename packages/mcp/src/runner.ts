import type { AuditSink, CanonicalInvocationStore } from "@aiops-harness/core"
import type { Effect } from "effect"

/** The services an MCP session needs to open its run: canonical store and durable audit. */
export type McpServices = CanonicalInvocationStore | AuditSink

/**
 * Runs an Effect on the caller's services (an app's `ManagedRuntime` fits). MCP handlers are
 * promise-based; the package never builds backends itself.
 */
export interface McpRunner {
  /** Runs the effect with the MCP services provided, as a promise. */
  readonly runPromise: <A, E>(
    effect: Effect.Effect<A, E, McpServices>,
    options?: { readonly signal?: AbortSignal }
  ) => Promise<A>
}

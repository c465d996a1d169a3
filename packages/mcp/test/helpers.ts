import { InMemoryAudit } from "@aiops-harness/audit"
import { InMemoryCanonicalStore, type JsonObject, type ToolDefinition } from "@aiops-harness/core"
import { redactText } from "@aiops-harness/projectors"
import { Effect, Layer, ManagedRuntime } from "effect"
import { z } from "zod"
import type { McpRunner } from "../src/index.js"

export const SECRET = "hunter2-s3cr3t-value"

/** A harness tool whose raw result carries a secret the projector must redact. */
export const fakeLogsTool: ToolDefinition<{ query: string; limit: number }, { lines: string[] }> = {
  name: "query_fake_logs",
  description: "Search fake logs.",
  readOnly: true,
  requestSchema: z.strictObject({
    query: z.string().min(1).describe("what to search"),
    limit: z.number().int().min(1).max(20).default(5)
  }),
  execute: (request) =>
    Effect.succeed({
      lines: Array.from({ length: request.limit }, (_, i) => `ERROR ${request.query} ${i} password=${SECRET}`)
    }),
  project: ({ raw }) =>
    Effect.succeed({
      evidenceStatus: raw.lines.length > 0 ? "EVIDENCE_FOUND" : "NO_EVIDENCE",
      observation: { lines: raw.lines.map(redactText) } as JsonObject,
      truncated: false,
      returnedCount: raw.lines.length
    })
}

export const makeTestRuntime = () =>
  ManagedRuntime.make(Layer.mergeAll(InMemoryCanonicalStore.layer(), InMemoryAudit.layer))

export type TestRuntime = ReturnType<typeof makeTestRuntime>

export const runnerOf = (runtime: TestRuntime): McpRunner => ({
  runPromise: (effect, options) => runtime.runPromise(effect, options)
})

/** A ManagedRuntime is a runner as it is (the README's example relies on it). */
export const runtimeIsRunner = (runtime: TestRuntime): McpRunner => runtime

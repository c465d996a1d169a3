import { Effect, Layer, Option } from "effect"
import fc from "fast-check"
import { describe, expect, it } from "vitest"
import {
  AuditSink,
  CanonicalInvocationStore,
  InMemoryCanonicalStore,
  isLegalStatusPair,
  makeRun,
  makeToolBoundary,
  type ToolDefinition
} from "../src/index.js"
import { errorRecord, projectingRecord, readyRecord } from "../src/testing/index.js"
import { call, failingBackendTool, knowledgeTool, runOptions } from "./helpers.js"

type Op = { kind: "create" | "ready" | "error" | "get"; key: number }

describe("status combinations stay legal (fast-check)", () => {
  it("under random store operation sequences", async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            kind: fc.constantFrom("create", "ready", "error", "get"),
            key: fc.integer({ min: 0, max: 3 })
          }),
          { maxLength: 40 }
        ),
        async (ops: Op[]) => {
          const bases = [0, 1, 2, 3].map((i) =>
            projectingRecord({ runId: "run-prop", toolCallId: `call-${i}` })
          )
          const program = Effect.gen(function* () {
            const store = yield* CanonicalInvocationStore
            const model = new Map<number, string>()
            for (const op of ops) {
              const base = bases[op.key]!
              const exit =
                op.kind === "create"
                  ? yield* Effect.exit(store.create(base))
                  : op.kind === "ready"
                    ? yield* Effect.exit(store.transition(readyRecord(base)))
                    : op.kind === "error"
                      ? yield* Effect.exit(store.transition(errorRecord(base)))
                      : yield* Effect.exit(Effect.asVoid(store.get(base.runId, base.toolCallId)))
              // Reference model of the legal transitions.
              const before = model.get(op.key)
              const shouldSucceed =
                op.kind === "get" ||
                (op.kind === "create" && before === undefined) ||
                (op.kind !== "create" && before === "PROJECTING")
              expect(exit._tag === "Success").toBe(shouldSucceed)
              if (shouldSucceed && op.kind === "create") model.set(op.key, "PROJECTING")
              if (shouldSucceed && op.kind === "ready") model.set(op.key, "READY")
              if (shouldSucceed && op.kind === "error") model.set(op.key, "ERROR")
              for (const b of bases) {
                const got = yield* store.get(b.runId, b.toolCallId)
                if (Option.isSome(got))
                  expect(isLegalStatusPair(got.value.status, got.value.evidenceStatus)).toBe(true)
              }
            }
          })
          await Effect.runPromise(Effect.provide(program, InMemoryCanonicalStore.layer()))
        }
      ),
      { numRuns: 150 }
    )
  })

  it("under random ToolBoundary call sequences (tools, ids, budgets, failures)", async () => {
    const tools: ToolDefinition[] = [
      knowledgeTool(),
      failingBackendTool(),
      knowledgeTool({ name: "write_tool", readOnly: false })
    ]
    await fc.assert(
      fc.asyncProperty(
        fc.array(
          fc.record({
            id: fc.constantFrom("c1", "c2", "c3", "bad id", "c4"),
            tool: fc.constantFrom("lookup_knowledge", "query_logs", "write_tool", "nope"),
            args: fc.constantFrom('{"query":"a"}', '{"query":""}', "{", '{"query":"b"}')
          }),
          { maxLength: 12 }
        ),
        fc.integer({ min: 0, max: 4 }),
        async (calls, maxToolCalls) => {
          const program = Effect.gen(function* () {
            const run = yield* makeRun(runOptions({ budget: { maxToolCalls } }))
            const boundary = yield* makeToolBoundary({ run, tools })
            const store = yield* CanonicalInvocationStore
            let ready = 0
            for (const c of calls) {
              const outcome = yield* boundary.call(call(c.id, c.args, c.tool))
              expect(isLegalStatusPair(outcome.control.status, outcome.control.evidenceStatus)).toBe(true)
              if (outcome.control.status === "READY") ready++
              if (outcome.control.toolCallId) {
                const got = yield* store.get(run.runId, outcome.control.toolCallId as never)
                if (Option.isSome(got)) {
                  expect(isLegalStatusPair(got.value.status, got.value.evidenceStatus)).toBe(true)
                  // Nothing is left PROJECTING once a call returned.
                  expect(got.value.status).not.toBe("PROJECTING")
                }
              }
            }
            expect(ready).toBeLessThanOrEqual(maxToolCalls)
          })
          await Effect.runPromise(
            Effect.provide(program, Layer.merge(InMemoryCanonicalStore.layer(), AuditSink.noop))
          )
        }
      ),
      { numRuns: 100 }
    )
  })
})

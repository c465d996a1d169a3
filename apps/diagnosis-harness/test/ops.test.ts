import { InMemoryCanonicalStore, type RunId, StoreError, type ToolCallId } from "@aiops-harness/core"
import { Effect, Logger } from "effect"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { InvalidConfig, loadConfig } from "../src/config.js"
import { SCENARIOS } from "../src/demo/index.js"
import { diagnose } from "../src/diagnose.js"
import { makeHttpApp } from "../src/http.js"
import { instrumentStore, makeAppMetrics } from "../src/ops.js"
import { makeTestWorld, type TestWorld } from "./helpers.js"

describe("/readyz and /metrics (embedded backends)", () => {
  let world: TestWorld
  beforeAll(async () => {
    world = await makeTestWorld({ SCENARIO: "db-pool-exhaustion" })
  })
  afterAll(() => world.runtime.dispose())

  it("ready with in-memory backends; metrics count runs, tool calls, tokens and store latency", async () => {
    const app = makeHttpApp(world.runtime, world.config)
    const ready = await app.request("/readyz")
    expect(ready.status).toBe(200)
    const report = await ready.json()
    expect(report).toMatchObject({
      ready: true,
      canonical_store: { ready: true, backend: "in-memory" },
      audit: { ready: true, backend: "in-memory", breaker: null }
    })
    // No query_mysql (no MySQL): no breaker to report.
    expect(report).not.toHaveProperty("query_mysql")
    const before = await (await app.request("/metrics")).text()
    expect(before).not.toMatch(/aiops_runs_total\{/)
    const { result } = await world.runtime.runPromise(
      diagnose({ question: SCENARIOS["db-pool-exhaustion"].sampleQuestion })
    )
    const response = await app.request("/metrics")
    expect(response.headers.get("content-type")).toContain("text/plain")
    const text = await response.text()
    expect(text).toContain(`aiops_runs_total{outcome="${result.releaseResult}"} 1`)
    const calls = result.checked.length
    const counted = [...text.matchAll(/^aiops_tool_calls_total\{[^}]*\} (\d+)$/gm)].reduce(
      (sum, m) => sum + Number(m[1]),
      0
    )
    expect(counted).toBe(calls)
    expect(text).toContain(`aiops_model_tokens_total{kind="total"} ${result.summary.totalTokens}`)
    expect(text).toMatch(/aiops_canonical_store_seconds_count\{operation="create",outcome="ok"\} [1-9]/)
    // No query_mysql (no MySQL), so no query_mysql breaker and none of its gauges.
    expect(text).not.toContain("aiops_query_mysql_breaker")
  })

  it("LOG_LEVEL must be a known level", () => {
    expect(loadConfig({ LOG_LEVEL: "warn" }).logLevel).toBe("Warn")
    expect(() => loadConfig({ LOG_LEVEL: "loud" })).toThrow(InvalidConfig)
  })
})

describe("instrumentStore", () => {
  it("logs one error when the store goes down and one info when it is back; FULL is a warning", async () => {
    const lines: Array<{ message: unknown; level: string }> = []
    const capture = Logger.layer([
      Logger.make((options) => void lines.push({ message: options.message, level: options.logLevel }))
    ])
    let mode: "up" | "down" | "full" = "up"
    const inner = await Effect.runPromise(InMemoryCanonicalStore.make())
    const flaky = {
      ...inner,
      get: (runId: RunId, toolCallId: ToolCallId) =>
        mode === "up"
          ? inner.get(runId, toolCallId)
          : Effect.fail(
              new StoreError({ operation: "get", reason: mode === "down" ? "UNAVAILABLE" : "FULL" })
            )
    }
    const metrics = makeAppMetrics()
    const store = instrumentStore(flaky, metrics)
    const get = Effect.ignore(Effect.suspend(() => store.get("run-1" as RunId, "call-1" as ToolCallId)))
    await Effect.runPromise(
      Effect.gen(function* () {
        yield* get
        mode = "down"
        yield* get
        yield* get
        mode = "up"
        yield* get
        yield* get
        mode = "full"
        yield* get
      }).pipe(Effect.provide(capture))
    )
    expect(lines.map((l) => `${l.level} ${JSON.stringify(l.message)}`)).toEqual([
      'Error ["canonical store unavailable: tool calls answer STORE_ERROR, guards fail closed"]',
      'Info ["canonical store recovered"]',
      'Warn ["canonical store full: records are refused until others expire"]'
    ])
    const text = await metrics.registry.metrics()
    expect(text).toContain('aiops_canonical_store_seconds_count{operation="get",outcome="error"} 2')
  })
})

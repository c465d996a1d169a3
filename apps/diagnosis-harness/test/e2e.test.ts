import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SCENARIOS, type ScenarioId } from "../src/demo/index.js"
import { runDiagnoseCommand } from "../src/main.js"
import {
  captureIo,
  expectCitationsReady,
  expectNoLeak,
  makeTestWorld,
  RELEASED_TIMELINE,
  type TestWorld
} from "./helpers.js"

const INCIDENTS: ReadonlyArray<ScenarioId> = [
  "db-pool-exhaustion",
  "oom-killed",
  "slow-query-orders",
  "redis-timeouts"
]

describe.each(INCIDENTS)("diagnose end to end, scenario %s (in-memory, offline model)", (scenario) => {
  let world: TestWorld
  beforeAll(async () => {
    world = await makeTestWorld({ SCENARIO: scenario })
  })
  afterAll(async () => {
    await world.runtime.dispose()
  })

  it("releases a cited, reconciled, leak-free DIAGNOSIS_REPORT", async () => {
    const { io, out, err } = captureIo()
    const { exitCode, outcome } = await runDiagnoseCommand(
      { question: SCENARIOS[scenario].sampleQuestion, sessionId: `session-${scenario}` },
      world.config,
      io,
      { runtime: world.runtime }
    )
    expect(exitCode).toBe(0)
    expect(outcome).not.toBeNull()
    const { result, trace } = outcome!
    expect(result.releaseResult).toBe("DIAGNOSIS_REPORT")
    expect(result.sessionId).toBe(`session-${scenario}`)

    // Every citation is a READY tool call of this very run (read from the canonical store).
    await expectCitationsReady(world.runtime, outcome!)

    // Timeline in the specified order; tokens reconcile; the audit is whole.
    expect(trace.found).toBe(true)
    if (!trace.found) return
    const sequence = trace.trace.timeline.map((e) => e.type).join(" ")
    expect(sequence).toMatch(RELEASED_TIMELINE)
    expect(trace.trace.timeline.map((e) => e.seq)).toEqual(trace.trace.timeline.map((_, i) => i + 1))
    expect(trace.trace.reconciliation.tokens_reconciled).toBe(true)
    expect(trace.trace.reconciliation.audit_complete).toBe(true)
    expect(trace.trace.run.release_result).toBe("DIAGNOSIS_REPORT")
    expect(trace.trace.reconciliation.ledger_total_tokens).toBe(result.summary.totalTokens)

    // CLI output: live progress on stderr, report + trace summary on stdout.
    expect(err.some((l) => l.includes("routing: intent="))).toBe(true)
    expect(err.some((l) => /tool (lookup_knowledge|query_logs) .* -> READY/.test(l))).toBe(true)
    expect(err.some((l) => l.includes("release: PUBLISH_REPORT") || l.includes("release:"))).toBe(true)
    const stdout = out.join("\n")
    expect(stdout).toContain("=== DIAGNOSIS_REPORT")
    expect(stdout).toContain("tokens_reconciled: true")
    expect(stdout).toContain("audit_complete:    true")

    // Nothing sensitive from the raw logs anywhere outside the raw logs.
    expectNoLeak("report", result.content)
    expectNoLeak("draft report", JSON.stringify(result.report))
    expectNoLeak("model observations", world.model.requests.join("\n"))
    expectNoLeak("CLI output", [...out, ...err].join("\n"))
    expectNoLeak("audit rows", world.auditDump())
    expectNoLeak("trace", JSON.stringify(trace.trace))
    expect(world.model.requests.length).toBeGreaterThan(0)
  })
})

describe("a question without evidence anywhere (calm world)", () => {
  let world: TestWorld
  beforeAll(async () => {
    world = await makeTestWorld({ SCENARIO: "calm", MAX_STEPS: "8" })
  })
  afterAll(async () => {
    await world.runtime.dispose()
  })

  it("stops by information gain and answers CANNOT_CONCLUDE within the step budget", async () => {
    const { io, out, err } = captureIo()
    const { exitCode, outcome } = await runDiagnoseCommand(
      { question: SCENARIOS.calm.sampleQuestion },
      world.config,
      io,
      { runtime: world.runtime }
    )
    expect(exitCode).toBe(0)
    const { result, trace } = outcome!
    expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
    expect(result.stopReason).toBe("NO_GAIN")
    expect(result.report).toBeNull()
    expect(result.content).toContain("NO_EVIDENCE")
    expect(result.content.length).toBeGreaterThan(0)
    expect(result.content.length).toBeLessThan(4000)
    expect(err.some((l) => l.startsWith("> STOP_REQUIRED"))).toBe(true)
    expect(trace.found).toBe(true)
    if (!trace.found) return
    const types = trace.trace.timeline.map((e) => e.type)
    expect(types).toContain("STOP_REQUIRED")
    expect(types.at(-1)).toBe("RUN_FINISHED")
    expect(trace.trace.agent_steps.length).toBeLessThanOrEqual(world.config.maxSteps)
    expect(trace.trace.reconciliation.tokens_reconciled).toBe(true)
    expect(trace.trace.run.release_result).toBe("CANNOT_CONCLUDE")
    expect(out.join("\n")).toContain("=== CANNOT_CONCLUDE")
    expectNoLeak("answer", result.content)
    expectNoLeak("model observations", world.model.requests.join("\n"))
    expectNoLeak("audit rows", world.auditDump())
  })
})

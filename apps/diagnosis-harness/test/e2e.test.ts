import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SCENARIOS, type ScenarioId } from "../src/demo/index.js"
import { makeHttpApp } from "../src/http.js"
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

describe("a question that carries an IP, a password and an access key", () => {
  const QUESTION = "why is checkout failing from 10.42.3.17? password=hunter2 AKIAIOSFODNN7EXAMPLE"
  const SECRETS = ["10.42.3.17", "hunter2", "AKIAIOSFODNN7EXAMPLE"]
  const expectNoQuestionSecret = (what: string, text: string) => {
    for (const secret of SECRETS) expect(text.includes(secret), `${what} leaks ${secret}`).toBe(false)
  }
  let world: TestWorld
  beforeAll(async () => {
    world = await makeTestWorld({ SCENARIO: "db-pool-exhaustion" })
  })
  afterAll(async () => {
    await world.runtime.dispose()
  })

  it("redacts it everywhere on the CLI code path: report, model messages, output, audit, trace", async () => {
    const { io, out, err } = captureIo()
    const { exitCode, outcome } = await runDiagnoseCommand(
      { question: QUESTION, sessionId: "session-secret-cli" },
      world.config,
      io,
      { runtime: world.runtime }
    )
    expect(exitCode).toBe(0)
    const { result, trace } = outcome!
    expect(result.intent).toBe("diagnosis")
    expect(result.content.length).toBeGreaterThan(0)
    expect(trace.found).toBe(true)
    if (!trace.found) return
    // The audited query keeps the question's shape with placeholders.
    expect(trace.trace.run.query).toContain("<IP>")
    expect(trace.trace.run.query).toContain("<SECRET>")
    expectNoQuestionSecret("report", result.content)
    expectNoQuestionSecret("draft report", JSON.stringify(result.report))
    expectNoQuestionSecret("model messages", world.model.requests.join("\n"))
    expectNoQuestionSecret("CLI output", [...out, ...err].join("\n"))
    expectNoQuestionSecret("audit rows", world.auditDump())
    expectNoQuestionSecret("trace", JSON.stringify(trace.trace))
    expectNoLeak("report", result.content)
  })

  it("redacts it in the SSE stream and the trace served over HTTP", async () => {
    const app = makeHttpApp(world.runtime, world.config)
    const response = await app.request("/api/chat", {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify({ question: QUESTION, sessionId: "session-secret-http" })
    })
    expect(response.status).toBe(200)
    const raw = await response.text()
    expect(raw).toContain("event: answer")
    const answerLine = raw
      .split("\n\n")
      .find((block) => block.includes("event: answer"))
      ?.split("\n")
      .find((line) => line.startsWith("data:"))
    const answer = JSON.parse(answerLine!.slice(5))
    expect(answer.sessionId).toBe("session-secret-http")
    expect(answer.content.length).toBeGreaterThan(0)
    expectNoQuestionSecret("SSE stream", raw)

    const traceResponse = await app.request(`/api/trace?sessionId=session-secret-http&runId=${answer.runId}`)
    expect(traceResponse.status).toBe(200)
    const traceText = await traceResponse.text()
    expect(JSON.parse(traceText).run.final_content).toBe(answer.content)
    expectNoQuestionSecret("served trace", traceText)
    expectNoQuestionSecret("model messages", world.model.requests.join("\n"))
    expectNoQuestionSecret("audit rows", world.auditDump())
  })
})

import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SCENARIOS, type ScenarioId } from "../src/demo/index.js"
import { runDiagnoseCommand } from "../src/main.js"
import { captureIo, expectCitationsReady, expectNoLeak, makeTestWorld, type TestWorld } from "./helpers.js"

/**
 * The offline model's reasoning, judged by its released report: for each incident the summary
 * names the right cause family and the cited runbook is the one that explains the incident's
 * log signature. Two questions per incident: the scenario's own, and the generic checkout one.
 */
const EXPECTED: ReadonlyArray<{
  readonly scenario: ScenarioId
  readonly cause: ReadonlyArray<RegExp>
  readonly runbook: string
}> = [
  {
    scenario: "db-pool-exhaustion",
    cause: [/connection pool/i],
    runbook: "db-connection-pool-exhaustion.md"
  },
  { scenario: "oom-killed", cause: [/OOM|memory/i], runbook: "oomkilled-pod-restarts.md" },
  { scenario: "slow-query-orders", cause: [/slow quer|index|lock/i], runbook: "slow-queries-orders.md" },
  { scenario: "redis-timeouts", cause: [/redis/i, /timeout/i], runbook: "redis-timeouts.md" }
]

const GENERIC_QUESTION = "why is checkout returning 500s?"

const diagnoseIn = async (world: TestWorld, question: string) => {
  const { io, out, err } = captureIo()
  const { exitCode, outcome } = await runDiagnoseCommand({ question }, world.config, io, {
    runtime: world.runtime
  })
  expect(exitCode, err.join("\n")).toBe(0)
  expect(outcome).not.toBeNull()
  return { outcome: outcome!, out, err }
}

describe.each(EXPECTED)("the offline model diagnoses $scenario", ({ scenario, cause, runbook }) => {
  let world: TestWorld
  beforeAll(async () => {
    world = await makeTestWorld({ SCENARIO: scenario })
  })
  afterAll(async () => {
    await world.runtime.dispose()
  })

  it.each([...new Set([SCENARIOS[scenario].sampleQuestion, GENERIC_QUESTION])])(
    "names the cause and cites the matching runbook for %j",
    async (question) => {
      const { outcome } = await diagnoseIn(world, question)
      const { result } = outcome
      expect(result.releaseResult, result.content).toBe("DIAGNOSIS_REPORT")
      const report = result.report!
      for (const re of cause) expect(report.summary).toMatch(re)
      expect(report.summary).toMatch(/^Most likely cause: /)

      // The first claim is the dominant log signature, cited by pattern id.
      expect(report.claims[0]?.citations[0]?.kind).toBe("pattern")
      // The runbook claim cites a section of the runbook that explains the signature.
      const documents = report.claims.flatMap((c) => c.citations.filter((x) => x.kind === "document"))
      expect(documents.length).toBeGreaterThan(0)
      expect(documents[0]!.ref.split("#")[0]).toBe(runbook)
      // Released text quotes what it copied from the evidence: `Runbook "T"` may be a marked quote.
      const RUNBOOK_TITLE = /^(?:\[quoted evidence: ")?Runbook ["']([^"']+)["']/
      const runbookClaim = report.claims.find((c) => RUNBOOK_TITLE.test(c.text))
      expect(runbookClaim?.citations[0]).toEqual(documents[0])
      const title = RUNBOOK_TITLE.exec(runbookClaim!.text)![1]!
      expect(report.summary).toContain(`Most likely cause: ${title}`)
      // Next steps come from the runbook (bounded), not from a fixed script.
      expect(report.next_steps?.length ?? 0).toBeGreaterThan(1)
      expect(report.next_steps!.length).toBeLessThanOrEqual(10)

      // Small and honest: at most five tool calls, every citation a READY call of this run,
      // the judge saw every quotation in the evidence.
      expect(result.checked.length).toBeLessThanOrEqual(5)
      expect(result.checked.every((c) => c.status === "READY")).toBe(true)
      expect(result.stopReason).toBeNull()
      expect(result.semanticGuard?.verdict).toBe("SUPPORTED")
      await expectCitationsReady(world.runtime, outcome)
      expectNoLeak("report", result.content)
    }
  )
})

describe("every affected service is named (redis-timeouts)", () => {
  let world: TestWorld
  beforeAll(async () => {
    world = await makeTestWorld({ SCENARIO: "redis-timeouts" })
  })
  afterAll(async () => {
    await world.runtime.dispose()
  })

  it("names cart-service and checkout-service, each with its own cited log pattern", async () => {
    const { outcome } = await diagnoseIn(world, SCENARIOS["redis-timeouts"].sampleQuestion)
    const report = outcome.result.report!
    expect(report.summary).toMatch(/affecting cart-service and checkout-service\./)
    const checkout = report.claims.find((c) => c.text.startsWith("checkout-service is affected too"))
    expect(checkout?.text).toMatch(/redis: i\/o timeout/)
    expect(checkout?.citations[0]?.kind).toBe("pattern")
    await expectCitationsReady(world.runtime, outcome)
  })
})

describe("the offline model in the calm world", () => {
  let world: TestWorld
  beforeAll(async () => {
    world = await makeTestWorld({ SCENARIO: "calm" })
  })
  afterAll(async () => {
    await world.runtime.dispose()
  })

  it.each([...new Set([SCENARIOS.calm.sampleQuestion, GENERIC_QUESTION])])(
    "makes no positive claim and ends CANNOT_CONCLUDE for %j",
    async (question) => {
      const { outcome } = await diagnoseIn(world, question)
      const { result } = outcome
      expect(result.releaseResult).toBe("CANNOT_CONCLUDE")
      expect(result.stopReason).toBe("NO_GAIN")
      expect(result.report).toBeNull()
      expect(result.content).not.toMatch(/Most likely cause/)
      expect(result.checked.length).toBeLessThanOrEqual(5)
    }
  )
})

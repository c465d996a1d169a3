/**
 * Two app processes on one Redis and one MySQL serve the runs of one session alternately; the
 * trace of every run, read from either process, is the same and complete: the app holds no run
 * state of its own. Spawns the built CLI (`dist/cli.js serve`, built by `pnpm test` first).
 */
import { type ChildProcess, spawn } from "node:child_process"
import { existsSync } from "node:fs"
import { fileURLToPath } from "node:url"
import { mysqlGate, redisGate, redisUrl, testId } from "@aiops-harness/core/testing"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { SCENARIOS } from "../src/demo/index.js"
import { databaseUrl } from "./fault-helpers.js"

const [hasRedis, hasMysql] = await Promise.all([redisGate(), mysqlGate()])
const cli = fileURLToPath(new URL("../dist/cli.js", import.meta.url))

interface Instance {
  readonly child: ChildProcess
  readonly base: string
}

const startInstance = (env: Record<string, string>): Promise<Instance> =>
  new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cli, "serve", "--port", "0"], {
      env: { ...process.env, ...env },
      stdio: ["ignore", "pipe", "pipe"]
    })
    let output = ""
    const timer = setTimeout(() => reject(new Error(`no listening line: ${output}`)), 30_000)
    // The banner is on stderr (stdout is for reports).
    const read = (d: Buffer) => {
      output += d
      const m = /listening on (http:\/\/127\.0\.0\.1:\d+)/.exec(output)
      if (m) {
        clearTimeout(timer)
        resolve({ child, base: m[1]! })
      }
    }
    child.stderr!.on("data", read)
    child.stdout!.on("data", read)
    child.once("exit", (code) => {
      clearTimeout(timer)
      reject(new Error(`exited ${code}: ${output}`))
    })
  })

const stop = (instance: Instance | undefined) =>
  new Promise<void>((resolve) => {
    if (!instance || instance.child.exitCode !== null) return resolve()
    instance.child.once("exit", () => resolve())
    instance.child.kill("SIGTERM")
  })

const chat = async (base: string, body: { question: string; sessionId: string }) => {
  const response = await fetch(`${base}/api/chat`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify(body)
  })
  const text = await response.text()
  const answer = /event: answer\ndata: (.*)\n/.exec(text)
  if (!answer) throw new Error(`no answer event: ${text.slice(-500)}`)
  return JSON.parse(answer[1]!) as { runId: string; sessionId: string; releaseResult: string }
}

describe.runIf(hasRedis && hasMysql)("two app processes, one Redis, one MySQL", () => {
  let a: Instance | undefined
  let b: Instance | undefined
  beforeAll(async () => {
    expect(existsSync(cli), "build the app first (pnpm test / pnpm test:faults build it)").toBe(true)
    const env = {
      REDIS_URL: redisUrl(),
      MYSQL_URL: await databaseUrl("aiops_reliability_two"),
      CANONICAL_STORE_KEY_PREFIX: `aiops_reliability_two_${testId("p").replaceAll("-", "_")}`,
      SCENARIO: "db-pool-exhaustion",
      HOST: "127.0.0.1",
      LOG_LEVEL: "warn"
    }
    // One after the other: both migrate the same database (serialized by a named lock anyway).
    a = await startInstance(env)
    b = await startInstance(env)
  }, 60_000)
  afterAll(async () => {
    await Promise.all([stop(a), stop(b)])
  })

  it("runs of one session served alternately; every trace is complete and identical from either", async () => {
    const sessionId = testId("s-two")
    const question = SCENARIOS["db-pool-exhaustion"].sampleQuestion
    const runs = []
    for (const instance of [a!, b!, a!, b!]) runs.push(await chat(instance.base, { question, sessionId }))
    expect(new Set(runs.map((r) => r.runId)).size).toBe(4)
    for (const run of runs) {
      expect(run.sessionId).toBe(sessionId)
      expect(run.releaseResult).toBe("DIAGNOSIS_REPORT")
      const query = `/api/trace?sessionId=${sessionId}&runId=${run.runId}`
      const [fromA, fromB] = await Promise.all(
        [a!, b!].map(async (i) => {
          const response = await fetch(`${i.base}${query}`)
          expect(response.status).toBe(200)
          return (await response.json()) as any
        })
      )
      expect(fromA).toEqual(fromB)
      expect(fromA.run).toMatchObject({ run_id: run.runId, session_id: sessionId, status: "FINISHED" })
      expect(fromA.reconciliation).toMatchObject({
        audit_complete: true,
        counts_match: true,
        tokens_reconciled: true,
        missing_writes: 0
      })
      const toolIds = [
        ...fromA.agent_steps.flatMap((s: any) => s.tool_invocations),
        ...fromA.tool_invocations_without_step
      ].map((t: any) => t.tool_call_id)
      expect(new Set(toolIds).size).toBe(toolIds.length)
      expect(toolIds.length).toBeGreaterThan(0)
    }
  }, 120_000)
})

import { execFile } from "node:child_process"
import { fileURLToPath } from "node:url"
import { promisify } from "node:util"
import { afterAll, beforeAll, describe, expect, it } from "vitest"
import { loadConfig } from "../src/config.js"
import { makeAppRuntime } from "../src/runtime.js"
import { type RunningServer, startServer } from "../src/server.js"
import { expectNoLeak, NOW } from "./helpers.js"

const run = promisify(execFile)
const examples = fileURLToPath(new URL("../../../examples/", import.meta.url))

/** The examples/ scripts of each stream, run as a user would, against a server on a free loopback port. */
describe("examples/: one client script per stream", () => {
  let server: RunningServer
  beforeAll(async () => {
    const config = loadConfig({ PORT: "0", SCENARIO: "db-pool-exhaustion", SHUTDOWN_GRACE_MS: "100" })
    server = await startServer(makeAppRuntime(config, { now: NOW }), config)
  })
  afterAll(async () => {
    await server.close()
  })

  it.each([
    ["ag-ui-client.mjs", /RUN_FINISHED \{"releaseResult":"DIAGNOSIS_REPORT"/],
    ["ai-sdk-client.mjs", /"releaseResult":"DIAGNOSIS_REPORT"/],
    ["chat-sse-client.mjs", /\] DIAGNOSIS_REPORT\n/]
  ])("%s prints the run and its released report", async (script, finished) => {
    const { stdout } = await run(
      process.execPath,
      [`${examples}${script}`, "why is checkout returning 500s?"],
      {
        env: { ...process.env, HARNESS_URL: `http://127.0.0.1:${server.port}` },
        timeout: 60_000
      }
    )
    expect(stdout).toMatch(finished)
    expect(stdout).toMatch(/Most likely cause: Database connection pool exhaustion/)
    expect(stdout).toMatch(/query_logs/)
    expectNoLeak(script, stdout)
  })
})

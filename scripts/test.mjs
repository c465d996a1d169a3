#!/usr/bin/env node
// `pnpm test`: one build, then independent lanes at once (tests, static checks, release check).
// The lanes share no outputs once dist/ exists, and the test lane waits on Redis/MySQL much of the
// time, so running them side by side shortens the wall time without changing what is checked.
// Exit code: non-zero when the build or any lane fails; every lane's output is printed.
import { spawn } from "node:child_process"
import { delimiter, dirname, join } from "node:path"
import { createInterface } from "node:readline"
import { fileURLToPath } from "node:url"

const root = join(dirname(fileURLToPath(import.meta.url)), "..")
const env = { ...process.env, PATH: `${join(root, "node_modules", ".bin")}${delimiter}${process.env.PATH}` }

// One lane: its steps run one after another; the first failing step ends the lane.
const lanes = [
  {
    // Live output: turbo's `<pkg>:test:` prefixed lines are what .ci/run counts.
    name: "tests",
    live: true,
    steps: ["turbo run typecheck test --only --concurrency=2"]
  },
  {
    // Root `biome check .` covers every package's files (no nested biome.json), so the
    // per-package `lint` tasks are not run again here.
    name: "checks",
    steps: [
      "biome check .",
      "pnpm --filter @aiops-harness/api-docs docs --logLevel Warn",
      "node scripts/check-pack.mjs",
      "node scripts/check-metadata.mjs"
    ]
  },
  { name: "release", steps: ["node scripts/release-check.mjs --ci-only"] }
]

const seconds = (start) => `${((performance.now() - start) / 1000).toFixed(1)}s`

// Runs one shell command; lines go to onLine. Resolves with the exit code.
const run = (command, onLine) =>
  new Promise((resolve) => {
    const child = spawn(command, { cwd: root, env, shell: true, stdio: ["ignore", "pipe", "pipe"] })
    for (const stream of [child.stdout, child.stderr]) {
      createInterface({ input: stream, crlfDelay: Number.POSITIVE_INFINITY }).on("line", onLine)
    }
    child.on("error", (error) => {
      onLine(`test.mjs: cannot start \`${command}\`: ${error.message}`)
      resolve(1)
    })
    child.on("close", (code, signal) => resolve(code ?? (signal ? 1 : 0)))
  })

const runLane = async (lane) => {
  const start = performance.now()
  const buffered = []
  // Whole lines only, so a live lane and a finished lane's block never split each other's lines.
  const onLine = lane.live ? (line) => process.stdout.write(`${line}\n`) : (line) => buffered.push(line)
  let code = 0
  let failedStep
  for (const step of lane.steps) {
    onLine(`$ ${step}`)
    code = await run(step, onLine)
    if (code !== 0) {
      failedStep = step
      break
    }
  }
  if (!lane.live) {
    process.stdout.write(
      `\n==== lane ${lane.name} ====\n${buffered.join("\n")}\n==== end ${lane.name} ====\n`
    )
  }
  return { name: lane.name, code, failedStep, time: seconds(start) }
}

const start = performance.now()
console.log("$ turbo run build --output-logs=errors-only")
const buildCode = await run("turbo run build --output-logs=errors-only", (line) => console.log(line))
if (buildCode !== 0) {
  console.error(`test: build failed (exit ${buildCode})`)
  process.exit(buildCode)
}
console.log(`test: build ${seconds(start)}; lanes: ${lanes.map((lane) => lane.name).join(", ")}`)

const results = await Promise.all(lanes.map(runLane))
console.log("")
for (const result of results) {
  const status = result.code === 0 ? "ok" : `FAILED (exit ${result.code} in \`${result.failedStep}\`)`
  console.log(`test: lane ${result.name} ${status} ${result.time}`)
}
console.log(`test: total ${seconds(start)}`)
process.exit(results.some((result) => result.code !== 0) ? 1 : 0)

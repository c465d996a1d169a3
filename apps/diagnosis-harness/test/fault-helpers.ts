import type { ProgressEvent } from "@aiops-harness/agent"
import type { RunTrace } from "@aiops-harness/audit"
import { mysqlUrl } from "@aiops-harness/core/testing"
import mysql from "mysql2/promise"
import { afterAll, beforeAll, vi } from "vitest"
import { type DiagnoseOutcome, diagnose } from "../src/diagnose.js"
import type { AppRuntime } from "../src/runtime.js"

/** A URL of the test MySQL server selecting `database` (created when missing). */
export const databaseUrl = async (database: string): Promise<string> => {
  const conn = await mysql.createConnection({ uri: mysqlUrl() })
  try {
    await conn.query(`CREATE DATABASE IF NOT EXISTS \`${database}\` CHARACTER SET utf8mb4`)
  } finally {
    await conn.end()
  }
  const url = new URL(mysqlUrl())
  url.pathname = `/${database}`
  return url.toString()
}

/** One run through the app's code path; `onProgress` sees every progress event. */
export const timedRun = async (
  runtime: AppRuntime,
  request: { readonly question: string; readonly sessionId?: string },
  onProgress?: (event: ProgressEvent) => void
): Promise<{ outcome: DiagnoseOutcome; ms: number }> => {
  const started = Date.now()
  const outcome = await runtime.runPromise(diagnose(request, onProgress ? { onProgress } : {}))
  return { outcome, ms: Date.now() - started }
}

/** Retries `attempt` until it succeeds or `deadlineMs` passed (then rethrows its last error). */
export const eventually = async <A>(
  attempt: () => Promise<A>,
  deadlineMs = 15_000,
  everyMs = 100
): Promise<A> => {
  const deadline = Date.now() + deadlineMs
  for (;;) {
    try {
      return await attempt()
    } catch (error) {
      if (Date.now() > deadline) throw error
      await new Promise((r) => setTimeout(r, everyMs))
    }
  }
}

export interface LogLine {
  readonly message: unknown
  readonly level: string
  readonly annotations: Record<string, unknown>
}

/** Captures the app's JSON log lines (stderr via `console.error`) for the whole file. */
export const captureJsonLogs = (): { readonly lines: LogLine[]; readonly clear: () => void } => {
  const lines: LogLine[] = []
  let spy: ReturnType<typeof vi.spyOn> | undefined
  beforeAll(() => {
    spy = vi.spyOn(console, "error").mockImplementation((...args: unknown[]) => {
      for (const arg of args) {
        if (typeof arg !== "string") continue
        try {
          const parsed = JSON.parse(arg)
          if (parsed && typeof parsed === "object" && "level" in parsed) lines.push(parsed as LogLine)
        } catch {
          // not a JSON log line
        }
      }
    })
  })
  afterAll(() => spy?.mockRestore())
  return { lines, clear: () => void lines.splice(0) }
}

export const logged = (lines: ReadonlyArray<LogLine>, text: string): LogLine | undefined =>
  lines.find((l) => JSON.stringify(l.message).includes(text))

/** The trace of a finished outcome (fails the test when there is none). */
export const traceOf = (outcome: DiagnoseOutcome): RunTrace => {
  if (!outcome.trace.found) throw new Error(`no trace: ${outcome.trace.reason}`)
  return outcome.trace.trace
}

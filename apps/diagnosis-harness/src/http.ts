import type { ProgressEvent } from "@aiops-harness/agent"
import { ID_PATTERN, newRunId, newSessionId } from "@aiops-harness/core"
import { Hono } from "hono"
import { streamSSE } from "hono/streaming"
import { z } from "zod"
import { type AppConfig, describeBackends } from "./config.js"
import { diagnose, readTrace } from "./diagnose.js"
import type { AppRuntime } from "./runtime.js"

/**
 * A required string field whose every issue message names the field (the API returns the
 * messages as they are): `<name> is required` when absent or empty, `<name> must be a string`.
 */
const requiredString = (name: string) =>
  z.string({
    error: (issue) => (issue.input === undefined ? `${name} is required` : `${name} must be a string`)
  })

const idMessage = (name: string) =>
  `${name} must be 1-128 characters of [A-Za-z0-9_.-] starting with a letter or digit`

/** An id field (`ID_PATTERN`); `required`: absent or empty is "<name> is required". */
const idField = (name: string, options: { readonly required: boolean }) => {
  const base = requiredString(name)
  return (options.required ? base.min(1, { error: `${name} is required`, abort: true }) : base).regex(
    ID_PATTERN,
    idMessage(name)
  )
}

/** `POST /api/chat` body. */
export const ChatRequestSchema = z.strictObject(
  {
    question: requiredString("question")
      .trim()
      .min(1, { error: "question is required", abort: true })
      .max(2000, "question is limited to 2000 characters"),
    sessionId: idField("sessionId", { required: false }).optional()
  },
  {
    error: (issue) =>
      issue.code === "invalid_type"
        ? "body must be a JSON object"
        : issue.code === "unrecognized_keys"
          ? `unknown field(s): ${issue.keys.join(", ")}`
          : undefined
  }
)
export type ChatRequest = z.infer<typeof ChatRequestSchema>

const TraceParamsSchema = z.object({
  sessionId: idField("sessionId", { required: true }),
  runId: idField("runId", { required: true })
})

export interface ApiError {
  readonly error: "INVALID_REQUEST" | "RUN_NOT_FOUND" | "AUDIT_UNAVAILABLE" | "NOT_FOUND" | "INTERNAL"
  readonly message: string
}

/** The schemas' messages already name their field: no path prefix (no "sessionId: sessionId ..."). */
const issuesText = (error: z.ZodError): string => [...new Set(error.issues.map((i) => i.message))].join("; ")

/**
 * The HTTP API over one app runtime:
 * - `POST /api/chat` `{ question, sessionId? }` -> SSE `metadata`, `progress`*, `answer` (or `error`);
 * - `GET /api/trace?sessionId=&runId=` -> the run's trace (404 for an unknown run);
 * - `GET /healthz`.
 */
export const makeHttpApp = (runtime: AppRuntime, config: AppConfig): Hono => {
  const app = new Hono()

  app.get("/healthz", (c) => c.json({ status: "ok", backends: describeBackends(config) }))

  app.post("/api/chat", async (c) => {
    let body: unknown
    try {
      body = await c.req.json()
    } catch {
      return c.json<ApiError>({ error: "INVALID_REQUEST", message: "body is not valid JSON" }, 400)
    }
    const parsed = ChatRequestSchema.safeParse(body)
    if (!parsed.success) {
      return c.json<ApiError>({ error: "INVALID_REQUEST", message: issuesText(parsed.error) }, 400)
    }
    const sessionId = parsed.data.sessionId ?? newSessionId()
    const runId = newRunId()
    return streamSSE(c, async (stream) => {
      await stream.writeSSE({ event: "metadata", data: JSON.stringify({ sessionId, runId }) })
      // Progress callbacks are synchronous: chain the writes to keep their order.
      let writes: Promise<void> = Promise.resolve()
      const onProgress = (event: ProgressEvent) => {
        writes = writes.then(() => stream.writeSSE({ event: "progress", data: JSON.stringify(event) }))
      }
      try {
        const { result } = await runtime.runPromise(
          diagnose({ question: parsed.data.question, sessionId, runId }, { onProgress })
        )
        await writes
        await stream.writeSSE({
          event: "answer",
          data: JSON.stringify({
            sessionId: result.sessionId,
            runId: result.runId,
            intent: result.intent,
            releaseResult: result.releaseResult,
            content: result.content
          })
        })
      } catch {
        await writes.catch(() => undefined)
        await stream.writeSSE({
          event: "error",
          data: JSON.stringify({
            error: "INTERNAL",
            message: "the diagnosis could not run; see the server log"
          })
        })
      }
    })
  })

  app.get("/api/trace", async (c) => {
    const parsed = TraceParamsSchema.safeParse({
      sessionId: c.req.query("sessionId"),
      runId: c.req.query("runId")
    })
    if (!parsed.success) {
      return c.json<ApiError>({ error: "INVALID_REQUEST", message: issuesText(parsed.error) }, 400)
    }
    const outcome = await runtime.runPromise(readTrace(parsed.data.sessionId, parsed.data.runId))
    if (outcome.found) return c.json(outcome.trace)
    return outcome.reason === "RUN_NOT_FOUND"
      ? c.json<ApiError>({ error: "RUN_NOT_FOUND", message: "no run with this sessionId and runId" }, 404)
      : c.json<ApiError>({ error: "AUDIT_UNAVAILABLE", message: "the audit store did not answer" }, 503)
  })

  app.notFound((c) =>
    c.json<ApiError>({ error: "NOT_FOUND", message: `no route ${c.req.method} ${c.req.path}` }, 404)
  )
  app.onError((_err, c) => c.json<ApiError>({ error: "INTERNAL", message: "internal error" }, 500))
  return app
}

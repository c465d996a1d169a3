import { ID_PATTERN, newRunId, newSessionId } from "@aiops-harness/core"
import { type Context, Hono } from "hono"
import { bodyLimit } from "hono/body-limit"
import { z } from "zod"
import { type AppConfig, describeBackends } from "./config.js"
import { readTrace } from "./diagnose.js"
import { readJsonRequest } from "./json-request.js"
import { mountOpsRoutes } from "./ops.js"
import { makeMcpRoutes } from "./mcp.js"
import type { AppRuntime } from "./runtime.js"
import { chatSseEncoder } from "./streams/chat-sse.js"
import { mountProtocolRoutes } from "./streams/routes.js"
import { streamRun } from "./streams/transport.js"
import { makeViewerRoutes } from "./viewer/index.js"

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

/** The longest question `POST /api/chat` and `cli diagnose` accept (after trimming). */
export const QUESTION_MAX_CHARS = 2000
export const QUESTION_TOO_LONG = `question is limited to ${QUESTION_MAX_CHARS} characters`

/** At most this many offending keys are named in an error message. */
export const MAX_KEYS_LISTED = 5
/** Each named key is cut to this many characters. */
export const MAX_KEY_CHARS = 40
/** An error message is cut to this many characters. */
export const MAX_ERROR_MESSAGE_CHARS = 400

const cut = (s: string, n: number): string => (s.length <= n ? s : `${s.slice(0, n - 1)}…`)

/**
 * `a, b, c and 12 more`: at most {@link MAX_KEYS_LISTED} keys, each cut to {@link MAX_KEY_CHARS}
 * and JSON-quoted (a key may hold any character), so an error never echoes a huge body back.
 */
export const boundedKeyList = (keys: ReadonlyArray<string>): string => {
  const shown = keys.slice(0, MAX_KEYS_LISTED).map((k) => JSON.stringify(cut(k, MAX_KEY_CHARS)))
  const rest = keys.length - shown.length
  return `${shown.join(", ")}${rest > 0 ? ` and ${rest} more` : ""}`
}

/** `POST /api/chat` body. */
export const ChatRequestSchema = z.strictObject(
  {
    question: requiredString("question")
      .trim()
      .min(1, { error: "question is required", abort: true })
      .max(QUESTION_MAX_CHARS, QUESTION_TOO_LONG),
    sessionId: idField("sessionId", { required: false }).optional()
  },
  {
    error: (issue) =>
      issue.code === "invalid_type"
        ? "body must be a JSON object"
        : issue.code === "unrecognized_keys"
          ? `unknown field(s): ${boundedKeyList(issue.keys)}`
          : undefined
  }
)
export type ChatRequest = z.infer<typeof ChatRequestSchema>

const TraceParamsSchema = z.object({
  sessionId: idField("sessionId", { required: true }),
  runId: idField("runId", { required: true })
})

export interface ApiError {
  readonly error:
    | "INVALID_REQUEST"
    | "UNSUPPORTED_MEDIA_TYPE"
    | "METHOD_NOT_ALLOWED"
    | "RUN_NOT_FOUND"
    | "AUDIT_UNAVAILABLE"
    | "NOT_FOUND"
    | "SHUTTING_DOWN"
    | "PAYLOAD_TOO_LARGE"
    | "INTERNAL"
  readonly message: string
}

/**
 * The diagnosis runs of open `POST /api/chat` streams. `cancelAll()` (shutdown) refuses new
 * runs and interrupts the running ones: each run ends with `RUN_FINISHED` CANCELLED (written
 * by the agent) and its stream with a final `event: error` `CANCELLED`.
 */
export class InFlightRuns {
  readonly #runs = new Set<AbortController>()
  #closing = false

  /** True once `cancelAll()` was called: no new run starts. */
  get closing(): boolean {
    return this.#closing
  }

  /** Open streams whose run (or final event) is not done. */
  get size(): number {
    return this.#runs.size
  }

  /** Tracks `work` (a run and its stream's final event) with the signal that cancels it. */
  track(work: (signal: AbortSignal) => Promise<void>): Promise<void> {
    const controller = new AbortController()
    if (this.#closing) controller.abort()
    this.#runs.add(controller)
    return work(controller.signal).finally(() => {
      this.#runs.delete(controller)
    })
  }

  /** Refuses new runs and interrupts every running one. */
  cancelAll(): void {
    this.#closing = true
    for (const controller of this.#runs) controller.abort()
  }
}

export interface HttpAppOptions {
  /** The registry of running chats (the server cancels it on shutdown). Default: a new one. */
  readonly runs?: InFlightRuns
  /** Interval of the SSE `: heartbeat` comment of every stream. Default 15000 ms. */
  readonly heartbeatMs?: number
}

/** The schemas' messages already name their field: no path prefix (no "sessionId: sessionId ..."). */
const issuesText = (error: z.ZodError): string =>
  cut([...new Set(error.issues.slice(0, 20).map((i) => i.message))].join("; "), MAX_ERROR_MESSAGE_CHARS)

/**
 * The HTTP API over one app runtime:
 * - `POST /api/chat` `{ question, sessionId? }` -> SSE `metadata`, `progress`*, `answer` (or `error`);
 * - `GET /api/trace?sessionId=&runId=` -> the run's trace (404 for an unknown run);
 * - `GET /healthz` (liveness), `GET /readyz` (backends; 503 when not ready), `GET /metrics`.
 * Other methods on these paths: `405` with an `Allow` header.
 */
export const makeHttpApp = (runtime: AppRuntime, config: AppConfig, options: HttpAppOptions = {}): Hono => {
  const app = new Hono()
  const runs = options.runs ?? new InFlightRuns()

  // Before any handler reads a body: a declared length over the limit is refused unread; a
  // chunked body is counted while it streams and refused at the first byte over the limit.
  app.use(
    "*",
    bodyLimit({
      maxSize: config.maxBodyBytes,
      onError: (c) => {
        // Do not drain the rest of an oversized upload: close the connection after the answer.
        c.header("connection", "close")
        return c.json<ApiError>(
          { error: "PAYLOAD_TOO_LARGE", message: `the body is limited to ${config.maxBodyBytes} bytes` },
          413
        )
      }
    })
  )

  app.get("/healthz", (c) => c.json({ status: "ok", backends: describeBackends(config) }))
  mountOpsRoutes(app, runtime, config)
  app.route("/", makeViewerRoutes(runtime))
  app.route("/", makeMcpRoutes(runtime, config, runs))

  app.post("/api/chat", async (c) => {
    const read = await readJsonRequest(c, runs)
    if (read instanceof Response) return read
    const parsed = ChatRequestSchema.safeParse(read.body)
    if (!parsed.success) {
      return c.json<ApiError>({ error: "INVALID_REQUEST", message: issuesText(parsed.error) }, 400)
    }
    const sessionId = parsed.data.sessionId ?? newSessionId()
    const runId = newRunId()
    return streamRun(c, {
      runtime,
      runs,
      ids: { sessionId, runId },
      question: parsed.data.question,
      encoder: chatSseEncoder(),
      ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {})
    })
  })

  mountProtocolRoutes(app, {
    runtime,
    runs,
    ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {})
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

  const methodNotAllowed = (allow: string) => (c: Context) => {
    c.header("allow", allow)
    return c.json<ApiError>(
      {
        error: "METHOD_NOT_ALLOWED",
        message: `${c.req.method} is not allowed on ${c.req.path}; use ${allow}`
      },
      405
    )
  }
  app.all("/api/chat", methodNotAllowed("POST"))
  app.all("/api/trace", methodNotAllowed("GET, HEAD"))
  app.all("/healthz", methodNotAllowed("GET, HEAD"))

  app.notFound((c) =>
    c.json<ApiError>({ error: "NOT_FOUND", message: `no route ${c.req.method} ${c.req.path}` }, 404)
  )
  app.onError((_err, c) => c.json<ApiError>({ error: "INTERNAL", message: "internal error" }, 500))
  return app
}

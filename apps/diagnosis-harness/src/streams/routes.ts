import { ID_PATTERN, newRunId } from "@aiops-harness/core"
import type { Context, Hono } from "hono"
import { z } from "zod"
import { readTrace } from "../diagnose.js"
// http.ts mounts these routes: its values are read at request time only (no load-time cycle).
import { type ApiError, type InFlightRuns, QUESTION_MAX_CHARS, QUESTION_TOO_LONG } from "../http.js"
import { readJsonRequest } from "../json-request.js"
import type { AppRuntime } from "../runtime.js"
import { agUiEncoder } from "./ag-ui.js"
import { aiSdkEncoder, UI_MESSAGE_STREAM_HEADERS } from "./ai-sdk.js"
import type { RunEncoder, RunIds } from "./run-events.js"
import { streamRun } from "./transport.js"

const idString = (name: string) =>
  z
    .string({
      error: (issue) => (issue.input === undefined ? `${name} is required` : `${name} must be a string`)
    })
    .regex(ID_PATTERN, `${name} must be 1-128 characters of [A-Za-z0-9_.-] starting with a letter or digit`)

const bodyError = (issue: { code: string }) =>
  issue.code === "invalid_type" ? "body must be a JSON object" : undefined

/** Text of an AG-UI user message: a string, or the `text` parts of a multimodal content array. */
const AgUiContentSchema = z.union([
  z.string(),
  z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))
])

/** AG-UI `RunAgentInput` (protocol 1.0): only what the harness reads is checked; other fields pass. */
export const RunAgentInputSchema = z.looseObject(
  {
    threadId: idString("threadId"),
    runId: idString("runId"),
    messages: z.array(z.looseObject({ role: z.string(), content: AgUiContentSchema.optional() }), {
      error: "messages must be an array"
    })
  },
  { error: bodyError }
)

/** AI SDK chat request (`DefaultChatTransport`): `id` = the chat, `messages` = UI messages with `parts`. */
export const AiSdkChatRequestSchema = z.looseObject(
  {
    id: idString("id"),
    messages: z.array(
      z.looseObject({
        role: z.string(),
        parts: z.array(z.looseObject({ type: z.string(), text: z.string().optional() }))
      }),
      { error: "messages must be an array" }
    )
  },
  { error: bodyError }
)

type Question = { readonly question: string } | { readonly error: string }

/** The last user message is the question (earlier turns are context the harness does not replay). */
const questionOf = (texts: ReadonlyArray<string> | null): Question => {
  if (texts === null) return { error: "messages must contain a user message" }
  const question = texts.join("\n").trim()
  if (question === "") return { error: "the last user message has no text" }
  if (question.length > QUESTION_MAX_CHARS) return { error: QUESTION_TOO_LONG }
  return { question }
}

const lastUser = <M extends { readonly role: string }>(messages: ReadonlyArray<M>): M | null =>
  [...messages].reverse().find((m) => m.role === "user") ?? null

const textParts = (parts: ReadonlyArray<{ readonly type: string; readonly text?: string | undefined }>) =>
  parts.filter((p) => p.type === "text" && typeof p.text === "string").map((p) => p.text as string)

/** What a protocol route needs: parse its body into the run's ids and question. */
interface ProtocolRoute {
  readonly path: string
  readonly parse: (
    body: unknown
  ) => { readonly ids: RunIds; readonly question: string } | { readonly error: string }
  readonly encoder: () => RunEncoder
  readonly headers?: Readonly<Record<string, string>>
  /** The client chooses the run id: refuse one the audit already has (409 `RUN_ID_IN_USE`). */
  readonly clientRunId?: boolean
}

/** The errors of the protocol routes: `/api/chat`'s, plus a reused client-chosen run id. */
type ProtocolApiError = Omit<ApiError, "error"> & { readonly error: ApiError["error"] | "RUN_ID_IN_USE" }

const issuesText = (error: z.ZodError): string => [...new Set(error.issues.map((i) => i.message))].join("; ")

export const AG_UI_ROUTE: ProtocolRoute = {
  path: "/api/ag-ui",
  parse: (body) => {
    const parsed = RunAgentInputSchema.safeParse(body)
    if (!parsed.success) return { error: issuesText(parsed.error) }
    const user = lastUser(parsed.data.messages)
    const content = user?.content
    const q = questionOf(
      user === null
        ? null
        : typeof content === "string"
          ? [content]
          : content === undefined
            ? []
            : textParts(content)
    )
    if ("error" in q) return q
    return { ids: { sessionId: parsed.data.threadId, runId: parsed.data.runId }, question: q.question }
  },
  encoder: agUiEncoder,
  clientRunId: true
}

export const AI_SDK_ROUTE: ProtocolRoute = {
  path: "/api/ai-sdk/chat",
  parse: (body) => {
    const parsed = AiSdkChatRequestSchema.safeParse(body)
    if (!parsed.success) return { error: issuesText(parsed.error) }
    const user = lastUser(parsed.data.messages)
    const q = questionOf(user === null ? null : textParts(user.parts))
    if ("error" in q) return q
    // The chat id is the session; every request is a new run.
    return { ids: { sessionId: parsed.data.id, runId: newRunId() }, question: q.question }
  },
  encoder: aiSdkEncoder,
  headers: UI_MESSAGE_STREAM_HEADERS
}

export interface ProtocolRoutesOptions {
  readonly runtime: AppRuntime
  readonly runs: InFlightRuns
  readonly heartbeatMs?: number
}

/**
 * Mounts `POST /api/ag-ui` and `POST /api/ai-sdk/chat` (other methods: 405). Same request rules
 * as `/api/chat`: `application/json` (415 otherwise), a valid body (400 `INVALID_REQUEST`), 503
 * `SHUTTING_DOWN` during a shutdown.
 */
export const mountProtocolRoutes = (app: Hono, options: ProtocolRoutesOptions): void => {
  for (const route of [AG_UI_ROUTE, AI_SDK_ROUTE]) {
    app.post(route.path, async (c) => {
      const read = await readJsonRequest(c, options.runs)
      if (read instanceof Response) return read
      const request = route.parse(read.body)
      if ("error" in request)
        return c.json<ApiError>({ error: "INVALID_REQUEST", message: request.error }, 400)
      if (route.clientRunId) {
        // Best effort (a concurrent twin is not caught): a second run under one id would mix two runs' audit rows.
        const existing = await options.runtime.runPromise(readTrace(request.ids.sessionId, request.ids.runId))
        if (existing.found) {
          return c.json<ProtocolApiError>(
            {
              error: "RUN_ID_IN_USE",
              message: "this threadId already has a run with this runId; send a new runId"
            },
            409
          )
        }
      }
      return streamRun(c, {
        runtime: options.runtime,
        runs: options.runs,
        ids: request.ids,
        question: request.question,
        encoder: route.encoder(),
        ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
        ...(route.headers ? { headers: route.headers } : {})
      })
    })
    app.all(route.path, (c: Context) => {
      c.header("allow", "POST")
      return c.json<ApiError>(
        { error: "METHOD_NOT_ALLOWED", message: `${c.req.method} is not allowed on ${c.req.path}; use POST` },
        405
      )
    })
  }
}

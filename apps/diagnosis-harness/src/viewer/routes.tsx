import { type RunListPage, TraceQuery } from "@aiops-harness/audit"
import { CanonicalInvocationStore, ID_PATTERN, type RunId, type ToolCallId } from "@aiops-harness/core"
import { Clock, Effect, Option } from "effect"
import { type Context, Hono } from "hono"
import type { JSX } from "hono/jsx/jsx-runtime"
import type { AppRuntime } from "../runtime.js"
import { VIEWER_CSP } from "./assets.js"
import { MessagePage } from "./layout.js"
import { RunsListPage } from "./list.js"
import { isOutcome, outcomeFilter, type RunsFilter, toolCallsOf } from "./model.js"
import { RunBody, RunPage, type ObservationView, type RunView } from "./run.js"

/** Runs per list page. */
export const RUNS_PAGE_SIZE = 20

const setHeaders = (c: Context) => {
  c.header("content-security-policy", VIEWER_CSP)
  c.header("x-content-type-options", "nosniff")
  c.header("referrer-policy", "no-referrer")
  c.header("cache-control", "no-store")
}

/** Renders a JSX tree as a complete HTML document (or a fragment) with the viewer's headers. */
const html = async (c: Context, node: JSX.Element, status: 200 | 400 | 404 | 503 = 200, doctype = true) => {
  setHeaders(c)
  const body = String(await node.toString())
  return c.html(doctype ? `<!DOCTYPE html>${body}` : body, status)
}

/** The agent observation of one call from the canonical store (never the raw response). */
const observationOf = (runId: string, toolCallId: string) =>
  Effect.gen(function* () {
    const store = yield* CanonicalInvocationStore
    const record = yield* store.get(runId as RunId, toolCallId as ToolCallId)
    if (Option.isNone(record)) return { kind: "absent" } as const
    const r = record.value
    if (r.status === "PROJECTING") return { kind: "pending" } as const
    if (r.status === "READY") return { kind: "shown", observation: r.agentResult } as const
    // What the model was given for a failed call: the boundary's error envelope.
    return {
      kind: "shown",
      observation: {
        tool_call_id: r.toolCallId,
        tool: r.toolName,
        status: "ERROR",
        evidence_status: "ERROR",
        error_code: r.errorCode
      }
    } as const
  }).pipe(Effect.catch(() => Effect.succeed<ObservationView>({ kind: "store_unavailable" })))

type RunLoad =
  | { readonly found: true; readonly view: RunView }
  | { readonly found: false; readonly reason: "RUN_NOT_FOUND" | "AUDIT_UNAVAILABLE" }

/** The trace of a run plus the observations of its calls still in the canonical store. */
export const loadRunView = (sessionId: string, runId: string) =>
  Effect.gen(function* () {
    const query = yield* TraceQuery
    const trace = yield* query.getTrace(sessionId, runId)
    const calls = toolCallsOf(trace)
    const views = yield* Effect.forEach(calls, (call) => observationOf(trace.run.run_id, call.tool_call_id), {
      concurrency: 8
    })
    const observations = new Map<string, ObservationView>(
      calls.map((call, i) => [call.tool_call_id, views[i]!])
    )
    const now = yield* Clock.currentTimeMillis
    return { found: true, view: { trace, observations, now } } as RunLoad
  }).pipe(
    Effect.catchTag("RunNotFound", () => Effect.succeed<RunLoad>({ found: false, reason: "RUN_NOT_FOUND" })),
    Effect.catchTag("AuditReadError", () =>
      Effect.succeed<RunLoad>({ found: false, reason: "AUDIT_UNAVAILABLE" })
    )
  )

type ListLoad =
  | { readonly ok: true; readonly page: RunListPage }
  | { readonly ok: false; readonly status: 400 | 503; readonly message: string }

const loadList = (filter: RunsFilter, before: string | null) =>
  Effect.gen(function* () {
    const query = yield* TraceQuery
    const page = yield* query.listRuns({
      limit: RUNS_PAGE_SIZE,
      before,
      sessionId: filter.session,
      ...(filter.outcome ? outcomeFilter(filter.outcome) : {})
    })
    return { ok: true, page } as ListLoad
  }).pipe(
    Effect.catchTag("InvalidRunListQuery", (e) =>
      Effect.succeed<ListLoad>({ ok: false, status: 400, message: `${e.field}: ${e.reason}` })
    ),
    Effect.catchTag("AuditReadError", () =>
      Effect.succeed<ListLoad>({
        ok: false,
        status: 503,
        message: "The audit store did not answer; try again."
      })
    )
  )

const SESSION = new RegExp(ID_PATTERN.source)

const notFound = (c: Context, reason: "RUN_NOT_FOUND" | "AUDIT_UNAVAILABLE") =>
  reason === "RUN_NOT_FOUND"
    ? html(c, <MessagePage title="Run not found" message="No run with this session and run id." />, 404)
    : html(
        c,
        <MessagePage title="Audit unavailable" message="The audit store did not answer; try again." />,
        503
      )

/**
 * The trace viewer's pages, served by the app from its own origin:
 * - `GET /` recent runs (`?outcome=&session=&before=`);
 * - `GET /runs/:sessionId/:runId` one run;
 * - `GET /runs/:sessionId/:runId/live` the run page's body as an HTML fragment with
 *   `x-run-status` (what the page polls while the run is in progress).
 */
export const makeViewerRoutes = (runtime: AppRuntime): Hono => {
  const app = new Hono()

  app.get("/", async (c) => {
    const outcome = c.req.query("outcome") || null
    const session = c.req.query("session")?.trim() || null
    const before = c.req.query("before") || null
    if (outcome !== null && !isOutcome(outcome)) {
      return html(c, <MessagePage title="Bad filter" message="outcome: unknown outcome" />, 400)
    }
    if (session !== null && !SESSION.test(session)) {
      return html(
        c,
        <MessagePage
          title="Bad filter"
          message="session: 1-128 characters of [A-Za-z0-9_.-] starting with a letter or digit"
        />,
        400
      )
    }
    const filter: RunsFilter = { outcome, session }
    const load = await runtime.runPromise(loadList(filter, before))
    if (!load.ok) {
      return html(
        c,
        <MessagePage
          title={load.status === 400 ? "Bad filter" : "Audit unavailable"}
          message={load.message}
        />,
        load.status
      )
    }
    return html(c, <RunsListPage page={load.page} filter={filter} before={before} />)
  })

  app.get("/runs/:sessionId/:runId", async (c) => {
    const load = await runtime.runPromise(loadRunView(c.req.param("sessionId"), c.req.param("runId")))
    if (!load.found) return notFound(c, load.reason)
    return html(c, <RunPage {...load.view} />)
  })

  app.get("/runs/:sessionId/:runId/live", async (c) => {
    const load = await runtime.runPromise(loadRunView(c.req.param("sessionId"), c.req.param("runId")))
    if (!load.found) return notFound(c, load.reason)
    c.header("x-run-status", load.view.trace.run.status ?? "RUNNING")
    return html(c, <RunBody {...load.view} />, 200, false)
  })

  return app
}

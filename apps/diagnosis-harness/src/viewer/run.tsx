import type { RunTrace, ToolInvocationEntry } from "@aiops-harness/audit"
import type { Child } from "hono/jsx"
import { Page } from "./layout.js"
import {
  callAnchor,
  callState,
  citationTarget,
  evidenceAnchor,
  firstOf,
  formatMs,
  formatTime,
  formatTokens,
  listHref,
  missingReasonsOf,
  OUTCOME_LABEL,
  outcomeOf,
  reportParts,
  runPagePath,
  toolCallsOf,
  type Waterfall,
  waterfallOf
} from "./model.js"

/** What the page can show of a call's agent observation (from the short-lived canonical store). */
export type ObservationView =
  | { readonly kind: "shown"; readonly observation: Record<string, unknown> }
  | { readonly kind: "pending" }
  | { readonly kind: "absent" }
  | { readonly kind: "store_unavailable" }

export interface RunView {
  readonly trace: RunTrace
  readonly observations: ReadonlyMap<string, ObservationView>
  /** The app clock (a running run's time axis ends here). */
  readonly now: number
}

const scalar = (v: unknown): string =>
  v === null ? "null" : typeof v === "string" ? v : typeof v === "object" ? JSON.stringify(v) : String(v)

const Value = ({ value }: { value: unknown }) =>
  value !== null && typeof value === "object" ? <pre>{JSON.stringify(value, null, 2)}</pre> : scalar(value)

const Kv = ({ rows, label }: { rows: ReadonlyArray<readonly [string, Child]>; label?: string }) => (
  <dl class="kv" aria-label={label}>
    {rows.map(([k, v]) => (
      <>
        <dt>{k}</dt>
        <dd>{v}</dd>
      </>
    ))}
  </dl>
)

const yesNo = (v: boolean | null | undefined) => (v === null || v === undefined ? "—" : v ? "yes" : "no")

// ---- waterfall ---------------------------------------------------------------------------

const WaterfallView = ({ waterfall }: { waterfall: Waterfall }) => {
  const span = waterfall.t1 - waterfall.t0
  const pct = (t: number) => Math.min(100, Math.max(0, ((t - waterfall.t0) / span) * 100))
  return (
    <ol class="waterfall" aria-label="Run waterfall">
      <li class="axis" aria-hidden="true">
        <span class="wl">step</span>
        <span class="wb">0 ms — {formatMs(span)}</span>
        <span class="wd">duration</span>
        <span class="wt">tokens</span>
      </li>
      {waterfall.rows.map((row) => {
        const x = pct(row.start)
        const point = row.end <= row.start
        const width = point ? 0.8 : Math.max(0.6, pct(row.end) - x)
        const duration = point ? "at" : formatMs(row.end - row.start)
        const offset = formatMs(row.start - waterfall.t0)
        return (
          <li class={`s-${row.state} k-${row.kind}${row.nested ? " nested" : ""}`} data-kind={row.kind}>
            <span class="wl">
              {row.href ? <a href={row.href}>{row.label}</a> : row.label}
              <small>{row.detail}</small>
            </span>
            <span class="wb">
              <svg
                viewBox="0 0 100 10"
                preserveAspectRatio="none"
                role="img"
                aria-label={`${row.label}: starts at ${offset}, ${point ? "instant" : duration}${row.state === "error" || row.state === "refused" ? `, ${row.state}` : ""}`}
              >
                <rect class="track" x="0" y="3" width="100" height="4" />
                <rect
                  class="bar"
                  x={x.toFixed(3)}
                  y="0"
                  width={Math.min(width, 100 - x + 0.8).toFixed(3)}
                  height="10"
                />
              </svg>
            </span>
            <span class="wd num">{point ? `+${offset}` : duration}</span>
            <span class="wt num">{row.tokens === null ? "" : `${row.tokens} tok`}</span>
          </li>
        )
      })}
    </ol>
  )
}

// ---- observation ---------------------------------------------------------------------------

const ENVELOPE = new Set(["tool_call_id", "tool", "status", "evidence_status", "truncated", "error_code"])

/** Items whose fields are all short scalars (log lines, rows) read best as one line each. */
const isCompact = (o: Record<string, unknown> | null) =>
  o !== null &&
  Object.values(o).every((v) => v === null || typeof v !== "object") &&
  JSON.stringify(o).length < 400

const ItemList = ({
  callId,
  name,
  items
}: {
  callId: string
  name: string
  items: ReadonlyArray<unknown>
}) => (
  <ol
    class={`items${items.every((i) => isCompact(i !== null && typeof i === "object" ? (i as Record<string, unknown>) : null)) ? " compact" : ""}`}
    aria-label={name}
  >
    {items.map((item, index) => {
      const o = item !== null && typeof item === "object" ? (item as Record<string, unknown>) : null
      const ref =
        typeof o?.document_id === "string"
          ? o.document_id
          : typeof o?.pattern_id === "string"
            ? o.pattern_id
            : name === "rows"
              ? `rows[${index}]`
              : null
      return (
        <li
          id={ref === null ? undefined : evidenceAnchor(callId, ref)}
          data-ref={ref ?? undefined}
          tabindex={ref === null ? undefined : -1}
        >
          {o && isCompact(o) && ref === null ? (
            Object.entries(o).map(([k, v]) => (
              <span class="f">
                <span class="k">{k}</span>
                {scalar(v)}
              </span>
            ))
          ) : o ? (
            <Kv rows={Object.entries(o).map(([k, v]) => [k, <Value value={v} />] as const)} />
          ) : (
            <Value value={item} />
          )}
        </li>
      )
    })}
  </ol>
)

const ObservationBody = ({ callId, view }: { callId: string; view: ObservationView | undefined }) => {
  if (!view || view.kind === "absent")
    return (
      <p class="notice">
        Not in the canonical store: its records live for a short TTL (and a call refused before its record was
        created has none). The durable audit never keeps observations.
      </p>
    )
  if (view.kind === "pending") return <p class="notice">The call is still projecting.</p>
  if (view.kind === "store_unavailable")
    return <p class="notice">The canonical store did not answer: the observation cannot be shown.</p>
  const o = view.observation
  const entries = Object.entries(o)
  const head = entries.filter(([k, v]) => ENVELOPE.has(k) || !Array.isArray(v))
  const lists = entries.filter(([k, v]) => !ENVELOPE.has(k) && Array.isArray(v)) as Array<
    [string, Array<unknown>]
  >
  return (
    <>
      <Kv label="Observation fields" rows={head.map(([k, v]) => [k, <Value value={v} />] as const)} />
      {lists.map(([k, items]) => (
        <>
          <h4>
            {k} ({items.length})
          </h4>
          <ItemList callId={callId} name={k} items={items} />
        </>
      ))}
    </>
  )
}

/** The actual scope of a call, as its observation states it (the audit keeps only a digest). */
const scopeOf = (view: ObservationView | undefined): unknown => {
  if (view?.kind !== "shown") return null
  const o = view.observation
  if (o.scope !== undefined) return o.scope
  const picked = Object.fromEntries(
    ["query", "datasource", "topic"].filter((k) => o[k] !== undefined).map((k) => [k, o[k]])
  )
  return Object.keys(picked).length > 0 ? picked : null
}

const budgetOf = (call: ToolInvocationEntry): Child => {
  const b = call.metadata.budget_remaining
  if (b === null || typeof b !== "object" || Array.isArray(b)) return "not recorded"
  const r = b as Record<string, unknown>
  return `${scalar(r.tool_calls)} call(s), request ${scalar(r.request_bytes)} B, raw ${scalar(r.raw_bytes)} B, projection ${scalar(r.projection_bytes)} B`
}

const ToolCall = ({ call, view }: { call: ToolInvocationEntry; view: ObservationView | undefined }) => {
  const state = callState(call)
  const scope = scopeOf(view)
  return (
    <details id={callAnchor(call.tool_call_id)} class={`call s-${state}`} data-state={state}>
      <summary>
        <strong>{call.tool_name}</strong> <span class="mono">{call.tool_call_id}</span>{" "}
        <span class={`badge s-${state}`}>
          {call.status ?? "refused"}
          {call.evidence_status && call.evidence_status !== "ERROR" ? ` · ${call.evidence_status}` : ""}
          {call.error_code ? ` · ${call.error_code}` : ""}
        </span>{" "}
        <span class="muted">{formatMs(call.latency_ms)}</span>
      </summary>
      <div class="call-body">
        <section class="control-view" aria-label={`Control view of ${call.tool_call_id}`}>
          <h3>Control view</h3>
          <Kv
            rows={[
              ["status", call.status ?? "no record (refused before creation)"],
              ["evidence status", call.evidence_status ?? "—"],
              ["error code", call.error_code ?? "none"],
              [
                "scope",
                scope === null ? (
                  <span class="muted">not available (the audit keeps only the digest)</span>
                ) : (
                  <Value value={scope} />
                )
              ],
              [
                "duplicate identity",
                <span class="mono">{scalar(call.metadata.duplicate_identity ?? "—")}</span>
              ],
              ["returned count", call.returned_count === null ? "—" : String(call.returned_count)],
              ["truncated", yesNo(call.truncated)],
              [
                "bytes",
                `request ${call.request_bytes} B · raw ${call.raw_bytes} B · projection ${call.projection_bytes} B`
              ],
              ["budget left", budgetOf(call)],
              ["latency", formatMs(call.latency_ms)],
              ["started", formatTime(call.started_at)],
              ["agent step", call.step_id ?? "none"]
            ]}
          />
        </section>
        <section class="observation" aria-label={`Agent observation of ${call.tool_call_id}`}>
          <h3>Agent observation</h3>
          <ObservationBody callId={call.tool_call_id} view={view} />
        </section>
      </div>
    </details>
  )
}

// ---- report, guards, ledger ------------------------------------------------------------------

const Report = ({ trace, shownEvidence }: { trace: RunTrace; shownEvidence: ReadonlySet<string> }) => {
  const content = trace.run.final_content
  if (content === null) return <p class="notice">No answer yet.</p>
  const calls = new Set(toolCallsOf(trace).map((c) => c.tool_call_id))
  const parts = reportParts(content, calls)
  return (
    <div class="report" id="report-content">
      {parts.map((part) =>
        part.type === "text" ? (
          part.text
        ) : (
          <span class="citations">
            {"["}
            {part.citations.map((c, i) => {
              const target = citationTarget(c, shownEvidence)
              return (
                <>
                  {i > 0 ? "; " : ""}
                  <a
                    class="cite"
                    href={target.href}
                    data-call={c.toolCallId}
                    data-kind={c.kind}
                    data-ref={c.ref}
                    data-target={target.evidence ? "evidence" : "call"}
                    aria-label={`citation: ${c.kind} ${c.ref} of tool call ${c.toolCallId}`}
                  >
                    {c.text}
                  </a>
                </>
              )
            })}
            {"]"}
          </span>
        )
      )}
    </div>
  )
}

const Guards = ({ trace }: { trace: RunTrace }) => {
  const evidence = firstOf(trace.timeline, "EVIDENCE_GUARD_INITIAL")
  const semantic = firstOf(trace.timeline, "SEMANTIC_GUARD_DECISION")
  const semanticAttempt = firstOf(trace.timeline, "SEMANTIC_GUARD_ATTEMPT")
  const release = firstOf(trace.timeline, "RELEASE_DECISION")
  const stops = trace.timeline.filter((e) => e.type === "STOP_REQUIRED")
  const failures = Array.isArray(evidence?.payload.failures) ? evidence.payload.failures : []
  const verdicts = Array.isArray(semantic?.payload.verdicts) ? semantic.payload.verdicts : []
  const missing =
    release?.payload.decision === "CANNOT_CONCLUDE" ? missingReasonsOf(trace.run.final_content) : []
  return (
    <>
      <h3>Evidence guard</h3>
      {evidence ? (
        <>
          <Kv
            rows={[
              [
                "result",
                <span class={`badge s-${evidence.payload.passed ? "ok" : "error"}`}>
                  {evidence.payload.passed ? "passed" : "failed"}
                </span>
              ],
              ["canonical store available", yesNo(evidence.payload.store_available as boolean)],
              ["claims checked", scalar(evidence.payload.claims ?? "—")]
            ]}
          />
          {failures.length > 0 ? (
            <ul aria-label="Evidence guard failures">
              {failures.map((f) => {
                const r = (f ?? {}) as Record<string, unknown>
                const id = typeof r.tool_call_id === "string" ? r.tool_call_id : null
                return (
                  <li>
                    claim {typeof r.claim_index === "number" ? r.claim_index + 1 : "?"}: {scalar(r.reason)}
                    {id ? (
                      <>
                        {" "}
                        (<a href={`#${callAnchor(id)}`}>{id}</a>)
                      </>
                    ) : null}
                  </li>
                )
              })}
            </ul>
          ) : null}
        </>
      ) : (
        <p class="muted">Not run.</p>
      )}
      <h3>Semantic guard</h3>
      {semantic || semanticAttempt ? (
        <>
          <Kv
            rows={[
              [
                "verdict",
                <span class={`badge s-${semantic?.payload.passed ? "ok" : "error"}`}>
                  {scalar(semantic?.payload.verdict ?? semanticAttempt?.payload.outcome)}
                </span>
              ],
              ...(semanticAttempt?.payload.error_reason
                ? [["model error", scalar(semanticAttempt.payload.error_reason)] as const]
                : [])
            ]}
          />
          {verdicts.length > 0 ? (
            <ul aria-label="Semantic verdicts per claim">
              {verdicts.map((v) => {
                const r = (v ?? {}) as Record<string, unknown>
                return (
                  <li>
                    claim {typeof r.claim_index === "number" ? r.claim_index + 1 : "?"}: {scalar(r.verdict)}
                    {r.reason ? ` — ${scalar(r.reason)}` : ""}
                  </li>
                )
              })}
            </ul>
          ) : null}
        </>
      ) : (
        <p class="muted">Not run.</p>
      )}
      {stops.length > 0 ? (
        <>
          <h3>Stops</h3>
          <ul>
            {stops.map((s) => (
              <li>
                STOP_REQUIRED: {scalar(s.payload.reason)} (after {scalar(s.payload.checked_scopes ?? "?")}{" "}
                checked scope(s))
              </li>
            ))}
          </ul>
        </>
      ) : null}
      <h3>Release decision</h3>
      {release ? (
        <Kv
          rows={[
            [
              "decision",
              <span class={`badge s-${release.payload.decision === "PUBLISH_REPORT" ? "ok" : "warn"}`}>
                {scalar(release.payload.decision)}
              </span>
            ],
            ["release result", scalar(release.payload.release_result ?? "—")],
            ["missing items", scalar(release.payload.missing ?? 0)],
            ["stop reason", scalar(release.payload.stop_reason ?? "none")]
          ]}
        />
      ) : (
        <p class="muted">No release decision (yet).</p>
      )}
      {missing.length > 0 ? (
        <ul aria-label="Why the report was not released" id="release-missing">
          {missing.map((m) => (
            <li>{m}</li>
          ))}
        </ul>
      ) : null}
    </>
  )
}

const Ledger = ({ trace }: { trace: RunTrace }) => {
  const r = trace.reconciliation
  return (
    <>
      <h3>Per model call</h3>
      <section class="table-wrap" tabindex={0} aria-label="Token ledger per model call">
        <table id="ledger">
          <thead>
            <tr>
              <th scope="col">#</th>
              <th scope="col">Component</th>
              <th scope="col">Model</th>
              <th scope="col" class="num">
                Prompt
              </th>
              <th scope="col" class="num">
                Completion
              </th>
              <th scope="col" class="num">
                Total
              </th>
              <th scope="col">Usage reported</th>
            </tr>
          </thead>
          <tbody>
            {trace.token_ledger.map((u) => (
              <tr class={u.usage_available ? "" : "s-warn"}>
                <td class="num">{u.seq}</td>
                <td>
                  {u.component} {u.component_index}
                </td>
                <td class="mono">{u.model}</td>
                <td class="num">{formatTokens(u.prompt_tokens)}</td>
                <td class="num">{formatTokens(u.completion_tokens)}</td>
                <td class="num">{formatTokens(u.total_tokens)}</td>
                <td>{u.usage_available ? "yes" : "no (unknown, not 0)"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <h3>Per agent step</h3>
      <section class="table-wrap" tabindex={0} aria-label="Tokens per agent step">
        <table id="steps">
          <thead>
            <tr>
              <th scope="col">Step</th>
              <th scope="col">Outcome</th>
              <th scope="col">Tool calls</th>
              <th scope="col" class="num">
                Latency
              </th>
              <th scope="col" class="num">
                Tokens
              </th>
            </tr>
          </thead>
          <tbody>
            {trace.agent_steps.map((s) => (
              <tr id={`step-${s.step_index}`} class={s.outcome === "error" ? "s-error" : ""}>
                <td>
                  {s.step_index} <span class="muted mono">{s.step_id}</span>
                </td>
                <td>{s.outcome}</td>
                <td>
                  {s.tool_call_ids.map((id, i) => (
                    <>
                      {i > 0 ? ", " : ""}
                      <a href={`#${callAnchor(id)}`}>{id}</a>
                    </>
                  ))}
                </td>
                <td class="num">{formatMs(s.latency_ms)}</td>
                <td class="num">{s.usage_available ? formatTokens(s.total_tokens) : "unknown"}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </section>
      <h3>Reconciliation</h3>
      <Kv
        label="Reconciliation"
        rows={[
          [
            "tokens_reconciled",
            <span class={`badge s-${r.tokens_reconciled ? "ok" : "error"}`} id="tokens-reconciled">
              {String(r.tokens_reconciled)}
            </span>
          ],
          [
            "status_reconciled",
            <span class={`badge s-${r.status_reconciled ? "ok" : "error"}`} id="status-reconciled">
              {String(r.status_reconciled)}
            </span>
          ],
          ["invalid events", String(r.invalid_events)],
          [
            "usage_complete",
            <span class={`badge s-${r.usage_complete ? "ok" : "warn"}`} id="usage-complete">
              {String(r.usage_complete)}
            </span>
          ],
          ["ledger total", formatTokens(r.ledger_total_tokens)],
          ["run total", formatTokens(r.run_total_tokens)],
          ["RUN_FINISHED total", formatTokens(r.finished_event_total_tokens)],
          [
            "audit_complete",
            <span class={`badge s-${r.audit_complete ? "ok" : "error"}`} id="audit-complete">
              {String(r.audit_complete)}
            </span>
          ],
          ["missing writes", String(r.missing_writes)],
          [
            "records (found / expected)",
            `timeline ${r.timeline_events.found}/${r.timeline_events.expected ?? "?"} · steps ${r.agent_steps.found}/${r.agent_steps.expected ?? "?"} · tool calls ${r.tool_invocations.found}/${r.tool_invocations.expected ?? "?"} · ledger ${r.token_usages.found}/${r.token_usages.expected ?? "?"}`
          ]
        ]}
      />
    </>
  )
}

const Warnings = ({ trace }: { trace: RunTrace }) => {
  const r = trace.reconciliation
  const running = trace.run.status === "RUNNING" || trace.run.status === null
  const warnings: Array<Child> = []
  if (!running && !r.audit_complete) {
    const gaps = (
      [
        ["timeline events", r.timeline_events],
        ["agent steps", r.agent_steps],
        ["tool invocations", r.tool_invocations],
        ["token ledger entries", r.token_usages]
      ] as const
    ).filter(([, c]) => c.expected !== null && c.found < c.expected)
    warnings.push(
      <div class="alert" role="alert" id="audit-gap">
        <strong>
          Audit incomplete: {r.missing_writes} missing write{r.missing_writes === 1 ? "" : "s"}.
        </strong>
        This trace is not the whole run: some audit writes failed (the run went on; durable audit is
        fail-open).
        {gaps.length > 0
          ? ` Missing: ${gaps.map(([n, c]) => `${(c.expected ?? 0) - c.found} of ${c.expected} ${n}`).join(", ")}.`
          : ""}
        {!r.run_start_recorded ? " The run's start record was lost." : ""}
        {!r.run_finish_recorded ? " The run's finish record is missing." : ""}
      </div>
    )
  }
  if (!running && !r.tokens_reconciled) {
    warnings.push(
      <div class="alert warn" role="alert" id="tokens-warning">
        <strong>Tokens do not reconcile.</strong>
        Ledger {formatTokens(r.ledger_total_tokens)}, run {formatTokens(r.run_total_tokens)}, RUN_FINISHED{" "}
        {formatTokens(r.finished_event_total_tokens)}.
      </div>
    )
  }
  if (r.invalid_events > 0) {
    const invalid = trace.timeline.filter((e) => e.type === "INVALID_EVENT")
    warnings.push(
      <div class="alert" role="alert" id="invalid-events">
        <strong>
          {r.invalid_events} timeline event{r.invalid_events === 1 ? "" : "s"} did not match the event schema.
        </strong>
        A defect of the writer: these rows are shown as INVALID_EVENT and nothing in them was trusted.{" "}
        {invalid
          .slice(0, 5)
          .map((e) => `#${e.seq} ${scalar(e.payload.stored_type)} (${scalar(e.payload.issue)})`)
          .join(", ")}
      </div>
    )
  }
  if (!running && !r.status_reconciled) {
    warnings.push(
      <div class="alert" role="alert" id="status-warning">
        <strong>Status does not reconcile.</strong>
        The run record says {trace.run.status ?? "nothing"}; its RUN_FINISHED event is missing or says
        otherwise.
      </div>
    )
  }
  if (!r.usage_complete) {
    warnings.push(
      <div class="alert warn" role="status" id="usage-warning">
        <strong>Usage incomplete.</strong>
        At least one model call reported no usage: its tokens are unknown (not 0).
      </div>
    )
  }
  return <>{warnings}</>
}

/** The part of a run page that live updates replace (`/runs/:s/:r/live` returns exactly this). */
export const RunBody = ({ trace, observations, now }: RunView) => {
  const { run } = trace
  const outcome = outcomeOf(run)
  const calls = toolCallsOf(trace)
  const shownEvidence = new Set<string>()
  for (const call of calls) {
    const view = observations.get(call.tool_call_id)
    if (view?.kind !== "shown") continue
    const o = view.observation
    for (const key of ["evidence", "patterns"] as const) {
      const items = Array.isArray(o[key]) ? (o[key] as Array<Record<string, unknown>>) : []
      for (const item of items) {
        const ref = item?.document_id ?? item?.pattern_id
        if (typeof ref === "string") shownEvidence.add(evidenceAnchor(call.tool_call_id, ref))
      }
    }
    if (Array.isArray(o.rows)) {
      for (let i = 0; i < o.rows.length; i++)
        shownEvidence.add(evidenceAnchor(call.tool_call_id, `rows[${i}]`))
    }
  }
  const tokens = trace.reconciliation.ledger_total_tokens
  return (
    <>
      <section aria-labelledby="summary-h">
        <h2 id="summary-h">Summary</h2>
        <Kv
          rows={[
            ["question", <span id="question">{run.query ?? "(not recorded)"}</span>],
            [
              "outcome",
              <span class={`badge o-${outcome}`} id="run-outcome" data-status={run.status ?? "UNKNOWN"}>
                {OUTCOME_LABEL[outcome]}
              </span>
            ],
            ["status", run.status ?? "no run record"],
            ["intent", run.intent ?? "—"],
            ["release result", run.release_result ?? "—"],
            [
              "session",
              <a href={listHref({ outcome: null, session: run.session_id })} class="mono">
                {run.session_id}
              </a>
            ],
            ["run", <span class="mono">{run.run_id}</span>],
            ["started", formatTime(run.started_at)],
            ["finished", formatTime(run.finished_at)],
            ["duration", formatMs(run.latency_ms)],
            ["tool calls", String(calls.length)],
            ["tokens", formatTokens(run.total_token_count ?? tokens)]
          ]}
        />
        <Warnings trace={trace} />
      </section>
      <section aria-labelledby="waterfall-h">
        <h2 id="waterfall-h">Waterfall</h2>
        <WaterfallView waterfall={waterfallOf(trace, now)} />
      </section>
      <section aria-labelledby="report-h">
        <h2 id="report-h">{outcome === "released" ? "Released report" : "Answer"}</h2>
        <Report trace={trace} shownEvidence={shownEvidence} />
      </section>
      <section aria-labelledby="guards-h" id="guards">
        <h2 id="guards-h">Guards and release</h2>
        <Guards trace={trace} />
      </section>
      <section aria-labelledby="calls-h" id="tool-calls">
        <h2 id="calls-h">Tool calls ({calls.length})</h2>
        {calls.length === 0 ? (
          <p class="muted">No tool calls.</p>
        ) : (
          calls.map((c) => <ToolCall call={c} view={observations.get(c.tool_call_id)} />)
        )}
      </section>
      <section aria-labelledby="ledger-h">
        <h2 id="ledger-h">Token ledger</h2>
        <Ledger trace={trace} />
      </section>
    </>
  )
}

/** `/runs/:sessionId/:runId`: the run, live-updating while it runs. */
export const RunPage = (view: RunView) => {
  const { run } = view.trace
  const running = run.status === "RUNNING" || run.status === null
  const live = `${runPagePath(run.session_id, run.run_id)}/live`
  return (
    <Page title={`Run ${run.run_id}`}>
      <div data-live={running ? live : undefined} data-interval="1000" id="run-root">
        <h1>
          Run <span class="mono">{run.run_id}</span>
        </h1>
        <p id="live-status" role="status" aria-live="polite" class="muted">
          {running ? "Run in progress: this page updates every 1 s." : ""}
        </p>
        <div id="run-body">
          <RunBody {...view} />
        </div>
      </div>
    </Page>
  )
}

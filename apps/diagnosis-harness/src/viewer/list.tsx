import type { RunListPage } from "@aiops-harness/audit"
import { Page } from "./layout.js"
import {
  formatMs,
  formatTime,
  formatTokens,
  listHref,
  OUTCOME_LABEL,
  OUTCOMES,
  outcomeOf,
  type RunsFilter,
  runPagePath
} from "./model.js"

const Filters = ({ filter }: { filter: RunsFilter }) => (
  <search aria-label="Filter runs">
    <form class="filters" method="get" action="/">
      <label for="filter-outcome">
        Outcome
        <select id="filter-outcome" name="outcome">
          <option value="" selected={filter.outcome === null}>
            any
          </option>
          {OUTCOMES.map((o) => (
            <option value={o} selected={filter.outcome === o}>
              {OUTCOME_LABEL[o]}
            </option>
          ))}
        </select>
      </label>
      <label for="filter-session">
        Session
        <input
          id="filter-session"
          name="session"
          type="text"
          value={filter.session ?? ""}
          placeholder="any session"
          pattern="[A-Za-z0-9][A-Za-z0-9_.\-]{0,127}"
          autocomplete="off"
        />
      </label>
      <button type="submit">Filter</button>
      {filter.outcome || filter.session ? <a href="/">Clear filters</a> : null}
    </form>
  </search>
)

export interface RunsListProps {
  readonly page: RunListPage
  readonly filter: RunsFilter
  readonly before: string | null
}

/** Recent runs, newest first: one row per run, the question links to its page. */
export const RunsListPage = ({ page, filter, before }: RunsListProps) => (
  <Page title="Recent runs">
    <h1>Recent runs</h1>
    <Filters filter={filter} />
    {page.runs.length === 0 ? (
      <p class="notice" id="no-runs">
        {before || filter.outcome || filter.session
          ? "No runs match."
          : "No runs yet: ask a question with POST /api/chat or the CLI's diagnose."}
      </p>
    ) : (
      <section class="table-wrap cards" aria-labelledby="runs-caption" tabindex={0}>
        <table id="runs">
          <caption id="runs-caption">
            Recent runs, newest first{filter.outcome ? ` · outcome: ${OUTCOME_LABEL[filter.outcome]}` : ""}
            {filter.session ? ` · session: ${filter.session}` : ""}
          </caption>
          <thead>
            <tr>
              <th scope="col">Time (UTC)</th>
              <th scope="col">Session</th>
              <th scope="col">Question</th>
              <th scope="col">Outcome</th>
              <th scope="col" class="num">
                Tool calls
              </th>
              <th scope="col" class="num">
                Tokens
              </th>
              <th scope="col" class="num">
                Duration
              </th>
              <th scope="col">Audit</th>
            </tr>
          </thead>
          <tbody>
            {page.runs.map((run) => {
              const outcome = outcomeOf(run)
              return (
                <tr data-run-id={run.run_id} data-outcome={outcome}>
                  <td class="mono" data-label="Time (UTC)">
                    <time
                      datetime={run.started_at === null ? undefined : new Date(run.started_at).toISOString()}
                    >
                      {formatTime(run.started_at ?? run.finished_at)}
                    </time>
                  </td>
                  <td class="mono" data-label="Session">
                    <a
                      href={listHref({ outcome: filter.outcome, session: run.session_id })}
                      title="Only this session"
                    >
                      {run.session_id}
                    </a>
                  </td>
                  <td class="q" data-label="Question">
                    <a href={runPagePath(run.session_id, run.run_id)}>
                      {run.query ?? "(question not recorded)"}
                    </a>
                  </td>
                  <td data-label="Outcome">
                    <span class={`badge o-${outcome}`}>{OUTCOME_LABEL[outcome]}</span>
                  </td>
                  <td class="num" data-label="Tool calls">
                    {run.tool_calls}
                  </td>
                  <td class="num" data-label="Tokens">
                    {formatTokens(run.total_token_count)}
                  </td>
                  <td class="num" data-label="Duration">
                    {formatMs(run.latency_ms)}
                  </td>
                  <td data-label="Audit">
                    {run.status === "RUNNING" ? (
                      <span class="badge s-running">in progress</span>
                    ) : run.audit_complete ? (
                      <span class="badge s-ok">complete</span>
                    ) : (
                      <span class="badge s-error">
                        gap: {run.missing_writes} missing write{run.missing_writes === 1 ? "" : "s"}
                      </span>
                    )}
                  </td>
                </tr>
              )
            })}
          </tbody>
        </table>
      </section>
    )}
    <nav class="pager" aria-label="Pages">
      {before ? <a href={listHref(filter)}>Newest runs</a> : null}
      {page.next_cursor ? (
        <a href={listHref(filter, page.next_cursor)} rel="next">
          Older runs
        </a>
      ) : null}
    </nav>
  </Page>
)

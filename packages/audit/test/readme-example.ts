import { makeRun, parseSessionId, routingDecisionEvent } from "@aiops-harness/core"
import { Effect } from "effect"
import { MysqlAudit, migrate, TraceQuery } from "@aiops-harness/audit"

const url = "mysql://root@127.0.0.1:3306/aiops"
const program = Effect.gen(function* () {
  const sessionId = yield* parseSessionId("s-1") // InvalidId unless [A-Za-z0-9_.-], 1-128 chars
  const run = yield* makeRun({ sessionId, query: "checkout 500?", authorizedTools: [] })
  yield* run.recorder.event(routingDecisionEvent({ intent: "diagnosis", source: "model" }))
  yield* run.finish({ status: "FINISHED", finalContent: "..." })
  return yield* (yield* TraceQuery).getTrace(sessionId, run.runId) // reconciliation.audit_complete: true
})
await Effect.runPromise(migrate(url))
await Effect.runPromise(Effect.provide(program, MysqlAudit.layer({ url })))

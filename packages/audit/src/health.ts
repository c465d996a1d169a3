import type { CircuitSnapshot, CircuitState } from "@aiops-harness/core"
import { Context, Effect, Layer } from "effect"

/** What a repair pass did (`AUDIT_INCOMPLETE` marks; see the package README). */
export interface RepairReport {
  readonly trigger: "startup" | "breaker_closed"
  readonly at: number
  /** Runs whose lost finish record this process remembered and has now written as `AUDIT_INCOMPLETE`. */
  readonly finishesWritten: number
  /** `RUNNING` runs older than `staleRunMs` marked `AUDIT_INCOMPLETE`. */
  readonly staleRuns: number
}

/** Counters and state of the durable audit, for readiness, metrics and logs. */
export interface AuditStatus {
  readonly backend: "mysql" | "in-memory"
  /** The audit's circuit breaker; null for a backend without one (in-memory). */
  readonly breaker: CircuitSnapshot | null
  /** Audit records dropped since start (failed, timed out, refused by the open breaker, lost in a batch). */
  readonly droppedWrites: number
  /** Runs whose finish record was lost and waits for the next repair pass. */
  readonly pendingRepairs: number
  /** Audit writes in flight plus timeline events buffered for a batch. */
  readonly queueDepth: number
  readonly lastRepair: RepairReport | null
}

/** Readiness of the Durable Audit (the app's readiness probe). */
export interface AuditReadiness {
  readonly ready: boolean
  readonly breaker: CircuitState | null
  /** Why not ready: `CIRCUIT_OPEN`, `UNREACHABLE`, `TIMEOUT`. */
  readonly reason: "CIRCUIT_OPEN" | "UNREACHABLE" | "TIMEOUT" | null
  readonly latencyMs: number
}

/** Operations of the `AuditHealth` service: status and readiness of the Durable Audit. */
export interface AuditHealthShape {
  readonly status: Effect.Effect<AuditStatus>
  /** Readiness: the breaker is closed and the database answered a ping within its limit. */
  readonly check: Effect.Effect<AuditReadiness>
}

/** Health of the durable audit (provided by `auditLayerFromEnv` and `MysqlAudit.layer`). */
export class AuditHealth extends Context.Service<AuditHealth, AuditHealthShape>()(
  "@aiops-harness/audit/AuditHealth"
) {
  /** The in-memory audit: always ready, never drops a write. */
  static readonly inMemory = Layer.succeed(AuditHealth, {
    status: Effect.succeed<AuditStatus>({
      backend: "in-memory",
      breaker: null,
      droppedWrites: 0,
      pendingRepairs: 0,
      queueDepth: 0,
      lastRepair: null
    }),
    check: Effect.succeed<AuditReadiness>({ ready: true, breaker: null, reason: null, latencyMs: 0 })
  })
}

/** Hooks the app uses for metrics (plain synchronous callbacks; an exception is ignored). */
export interface AuditObserver {
  /** Called after each audit write with its record kind, duration and outcome. */
  readonly onWrite?: (sample: {
    readonly record: string
    readonly durationMs: number
    readonly ok: boolean
  }) => void
  /** Called after each trace read with its duration and outcome. */
  readonly onRead?: (sample: { readonly durationMs: number; readonly ok: boolean }) => void
}

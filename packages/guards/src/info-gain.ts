import type { ControlView } from "@aiops-harness/core"

/** Why the information-gain rule requires the agent to stop calling tools. */
export type StopReason = "DUPLICATE_REQUEST" | "NO_GAIN"

/** Thresholds of the information-gain stop rule. */
export interface InformationGainOptions {
  /** Consecutive no-gain observations (NO_EVIDENCE or ERROR) that require a stop. Default 3. */
  readonly noGainLimit: number
  /** Repeated requests (same duplicate identity) that require a stop. Default 1. */
  readonly duplicateLimit: number
}

/** Default thresholds: stop after 3 no-gain observations or 1 repeated request. */
export const defaultInformationGainOptions: InformationGainOptions = { noGainLimit: 3, duplicateLimit: 1 }

/** Harness-only state: never give it (or the thresholds) to the model. */
export interface InformationGainState {
  readonly seen: ReadonlySet<string>
  readonly consecutiveNoGain: number
  readonly duplicates: number
  readonly stopped: StopReason | null
}

/** What one observation means for the run: whether a stop is required, and why. */
export interface InformationGainDecision {
  readonly stopRequired: boolean
  readonly reason: StopReason | null
  readonly duplicate: boolean
  readonly noGain: boolean
}

/** State of a run before its first observation. */
export const initialInformationGainState: InformationGainState = {
  seen: new Set(),
  consecutiveNoGain: 0,
  duplicates: 0,
  stopped: null
}

/** The observation facts the tracker needs (a subset of `ControlView`). */
export type GainObservation = Pick<ControlView, "evidenceStatus" | "duplicateIdentity">

/**
 * Pure step: a repeated duplicate identity counts as a duplicate and as no gain;
 * NO_EVIDENCE and ERROR are no gain; EVIDENCE_FOUND (of a new identity) resets the count.
 * Once a stop is required it stays required.
 */
export const stepInformationGain = (
  state: InformationGainState,
  observation: GainObservation,
  options: InformationGainOptions = defaultInformationGainOptions
): { readonly state: InformationGainState; readonly decision: InformationGainDecision } => {
  const identity = observation.duplicateIdentity
  const duplicate = identity !== null && state.seen.has(identity)
  const seen = identity !== null && !duplicate ? new Set(state.seen).add(identity) : state.seen
  const noGain = duplicate || observation.evidenceStatus !== "EVIDENCE_FOUND"
  const consecutiveNoGain = noGain ? state.consecutiveNoGain + 1 : 0
  const duplicates = state.duplicates + (duplicate ? 1 : 0)
  const reason: StopReason | null =
    state.stopped ??
    (duplicates >= options.duplicateLimit && duplicate
      ? "DUPLICATE_REQUEST"
      : consecutiveNoGain >= options.noGainLimit
        ? "NO_GAIN"
        : null)
  return {
    state: { seen, consecutiveNoGain, duplicates, stopped: reason },
    decision: { stopRequired: reason !== null, reason, duplicate, noGain }
  }
}

/** Mutable wrapper over {@link stepInformationGain} for one run. */
export class InformationGainTracker {
  private current: InformationGainState = initialInformationGainState
  readonly options: InformationGainOptions

  constructor(options: Partial<InformationGainOptions> = {}) {
    const merged = { ...defaultInformationGainOptions, ...options }
    if (!Number.isInteger(merged.noGainLimit) || merged.noGainLimit < 1) {
      throw new RangeError("InformationGainTracker: noGainLimit must be an integer >= 1")
    }
    if (!Number.isInteger(merged.duplicateLimit) || merged.duplicateLimit < 1) {
      throw new RangeError("InformationGainTracker: duplicateLimit must be an integer >= 1")
    }
    this.options = merged
  }

  /** Folds one observation's Control View into the state and returns the decision. */
  observe(control: GainObservation): InformationGainDecision {
    const { state, decision } = stepInformationGain(this.current, control, this.options)
    this.current = state
    return decision
  }

  get state(): InformationGainState {
    return this.current
  }
}

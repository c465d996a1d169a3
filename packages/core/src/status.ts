/** Lifecycle of one canonical invocation. */
export type InvocationStatus = "PROJECTING" | "READY" | "ERROR"
/** Semantics of one canonical invocation's result. */
export type EvidenceStatus = "EVIDENCE_FOUND" | "NO_EVIDENCE" | "ERROR"
/** The evidence statuses a READY invocation can have. */
export type ReadyEvidenceStatus = Exclude<EvidenceStatus, "ERROR">

/** Every InvocationStatus: the lifecycle of a canonical record. */
export const INVOCATION_STATUSES: ReadonlyArray<InvocationStatus> = ["PROJECTING", "READY", "ERROR"]
/** Every EvidenceStatus: what a finished call says about the evidence. */
export const EVIDENCE_STATUSES: ReadonlyArray<EvidenceStatus> = ["EVIDENCE_FOUND", "NO_EVIDENCE", "ERROR"]

/**
 * The four legal (InvocationStatus, EvidenceStatus) pairs; a record type can only be built
 * from one of these (see `CanonicalInvocation`).
 */
export type StatusPair =
  | { readonly status: "PROJECTING"; readonly evidenceStatus: null }
  | { readonly status: "READY"; readonly evidenceStatus: "EVIDENCE_FOUND" }
  | { readonly status: "READY"; readonly evidenceStatus: "NO_EVIDENCE" }
  | { readonly status: "ERROR"; readonly evidenceStatus: "ERROR" }

/** True when (status, evidenceStatus) is one of the legal pairs (for unchecked input, e.g. a stored record). */
export const isLegalStatusPair = (status: unknown, evidenceStatus: unknown): boolean =>
  (status === "PROJECTING" && evidenceStatus === null) ||
  (status === "READY" && (evidenceStatus === "EVIDENCE_FOUND" || evidenceStatus === "NO_EVIDENCE")) ||
  (status === "ERROR" && evidenceStatus === "ERROR")

/** A READY NO_EVIDENCE record is citable only as a scoped negative observation. */
export const isCitable = (pair: StatusPair): boolean => pair.status === "READY"

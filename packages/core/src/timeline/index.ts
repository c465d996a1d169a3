export {
  type CallerTimelineEvent,
  agentModelStepEvent,
  evidenceGuardEvent,
  releaseDecisionEvent,
  routingAttemptEvent,
  routingDecisionEvent,
  semanticGuardAttemptEvent,
  semanticGuardDecisionEvent,
  stopRequiredEvent,
  type TimelineEnvelope,
  type TimelineEvent,
  type TimelineEventBody,
  type TimelineEventOf,
  toolInvocationEvent
} from "./events.js"
export {
  hasEventType,
  InvalidTimelineEvent,
  parseTimelinePayload,
  type TimelineParseResult
} from "./parse.js"
export * from "./schemas.js"

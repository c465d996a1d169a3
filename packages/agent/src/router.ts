import {
  type RunContext,
  routingAttemptEvent,
  routingDecisionEvent,
  type TimelinePayload
} from "@aiops-harness/core"
import { Clock, Effect } from "effect"
import { ChatModel } from "./model.js"
import { ROUTER_SYSTEM_PROMPT } from "./prompts.js"
import {
  DEFAULT_MAX_LOOKBACK_MINUTES,
  extractTimeWindow,
  type ResolvedWindow,
  resolveWindow,
  type TimeWindowOptions
} from "./time-window.js"

/** The router's classification of a question: a diagnosis or something else. */
export type Intent = "diagnosis" | "other"

/**
 * The model name in the ledger entry of a model call that failed: the provider answered
 * nothing, so neither its model nor its usage is known.
 */
export const UNKNOWN_MODEL = "unknown"

/**
 * General symptom and investigation vocabulary (English, matched as whole words or word stems):
 * what a user says when something in production misbehaves. No service or incident names.
 */
const DIAGNOSIS_PATTERNS: ReadonlyArray<RegExp> = [
  // something is wrong / broken / not working
  /\bwrong\b/,
  /\bbroken\b/,
  /\bbr(?:eak(?:s|ing)?|oke)\b/,
  /\bnot (?:being |getting )?(?:work|load|respond|start|connect|return|send|sent|sav|process|complet|creat|deliver|updat|show|display|receiv|accept|consum|publish|sync|replicat)\w*/,
  /\b(?:does|do|did|is|are|was|were|has|have)n[’']?t (?:work|load|respond|start|connect|return|send|sav|process|complet)\w*/,
  /\bno longer\b/,
  /\bstopped (?:work|respond|process)\w*/,
  /\bfail\w*/,
  /\bdown\b/,
  /\boutages?\b/,
  /\berr(?:or|ors|ored|oring)?\b/,
  /\bexceptions?\b/,
  /\bslow\w*/,
  /\blatenc\w*/,
  /\btime ?outs?\b/,
  /\btim(?:ed|ing) out\b/,
  /\bhang(?:s|ing)?\b/,
  /\bstuck\b/,
  /\bcrash\w*/,
  /\brestart\w*/,
  /\breboot\w*/,
  /\b(?:oom|oomkilled|out of memory)\b/,
  /\bdeadlocks?\b/,
  /\b5xx\b|\b4xx\b|\b50[0-9]s?\b/,
  /\bdegrad\w*/,
  /\bspik\w*/,
  /\bincidents?\b/,
  /\balert\w*/,
  /\b(?:can[’']?t|cannot|could ?n[’']?t|unable|won[’']?t)\b/,
  /\bunavailable\b|\bnot (?:be |being )?(?:available|reachable|ready|responding)\b/,
  /\bunreachable\b/,
  /\bunhealthy\b/,
  /\bleak\w*/,
  /\bretr(?:y|ies|ying)\b/,
  /\brefus\w*/,
  /\bdropp\w*/,
  // health and status: a question about the current state is a diagnosis of it
  /\bhealth\w*/,
  /\bstatus\b/,
  /\bhow(?:[’']?s| is| are| was| were| has| have)\b[^?.!]*\b(?:doing|looking|perform\w*|behaving|running|holding up)\b/,
  /\b(?:is|are|was|were)\b[^?.!]*\b(?:ok|okay|fine|up|alive|running|working|responding|healthy|stable)\b/,
  /\b(?:everything|all|things)(?:[’']s| is| are| looks?| looking)? (?:good|ok|okay|fine|alright|all right|normal|green)\b/,
  /\b(?:problems?|issues?|trouble|anomal\w*|misbehav\w*)\b/,
  /\bdie[sd]?\b|\bdying\b|\bdead\b/,
  /\bwhat(?:[’']?s| is| was)\s+(?:going on|happening|up with)\b/,
  /\b(?:check|look)(?:ing)?\s+(?:on|into|at)\b|\b(?:take|have) a look\b/,
  /\bhow(?:[’']?s| is| are)\b[^?.!]*\b(?:service|gateway|api|db|database|cluster|queue|cache|redis|mysql|postgres\w*|kafka|pods?|nodes?)\b/,
  // something behaves oddly, a resource or a metric looks bad
  /\b(?:weird|strange|flak\w*|unstable|erratic|intermittent\w*|sporadic\w*)\b/,
  /\bp(?:50|75|90|95|99|999)\b|\b(?:cpu|memory|heap|disk|throughput|backlog|lag\w*)\b/,
  /\bclimb\w*|\bthrottl\w*|\brate[ -]?limit\w*/,
  /\bpaged\b|\bon fire\b|\bfiring\b/,
  /\bnpes?\b|nullpointer|\bpanic\w*|\bsegfault\w*|\bstack ?traces?\b/,
  // inside identifiers too: RedisCommandTimeoutException, SocketTimeout
  /timeout|exception\b/,
  /\bwhy\b/,
  /\binvestigat\w*/,
  /\bdiagnos\w*/,
  /\btroubleshoot\w*/,
  /\broot cause\b/,
  /\bwhat happened\b/,
  // slowness in users' words, not only "slow" and "latency"
  /\bresponse[ -]?times?\b/,
  /\b(?:takes?|taking|took)\b[^?.!]*\b(?:forever|ages|too long|a long time|minutes|\d+(?:\.\d+)?\s*(?:ms|s|secs?|seconds?|mins?))\b/,
  // processes ending badly: exit codes and fatal signals
  /\bexit(?:s|ed|ing)?\b[^?.!]*\b(?:code|status)\s*[1-9]\d*\b|\bexit code\b|\bsig(?:kill|term|segv|abrt)\b/,
  /\bsluggish\w*|\bunresponsive\b|\bspinn(?:er|ing)\b/,
  /\bnever (?:ends?|loads?|finish\w*|complet\w*|returns?|respond\w*|arriv\w*)\b/,
  // something missing, piling up or running out
  /\bmissing\b|\bblank (?:page|screen)s?\b|\bwhite screens?\b/,
  /\b(?:fall(?:s|ing)?|fell|lagg?(?:s|ing)?|running|way|is|are|seems?|looks?|gets?|getting|got) behind\b|\breplication (?:delay|lag)\b/,
  /\bpil(?:e|es|ed|ing) up\b|\bbacked up\b|\bqueue (?:depth|length|size)\b/,
  /\bexhaust\w*|\bsaturat\w*|\bpegged\b|\bmaxed\b|\bthrough the roof\b/,
  // X keeps Y-ing: a recurring symptom ("keeps bouncing", "keep getting evicted")
  /\bkeeps? (?:on )?\w+ing\b/,
  /\bflap\w*|\bbounc(?:e|es|ed|ing)\b|\bevict\w*|\bkill(?:ed|s)\b|\breject\w*|\bthrash\w*/,
  // HTTP failures by code or name ("429s", "getting 503", "bad gateway")
  /\b[45]\d\ds\b|\b(?:http|status|code|returns?|returning|got|getting|throws?|throwing|seeing|see)\s+(?:an? |lots of |many |some )?[45]\d\d\b/,
  /\bbad gateway\b|\bgateway time-?out\b|\binternal server error\b|\bservice unavailable\b|\btoo many requests\b/,
  // objectives and sudden changes
  /\bslos?\b|\bslas?\b|\berror budget\b|\bburn(?:ing)? (?:rate|through)\b/,
  /\bregress\w*|\b(?:went|gone|turned|is) red\b|\bwent (?:up|down)\b|\bfell off\b|\bplummet\w*|\btank(?:ed|ing)\b|\bsurg(?:e|es|ed|ing)\b/,
  /\bsomething(?:[’']s| is| seems| looks)? (?:off|wrong|weird|broken|up)\b|\b(?:seems?|looks?) off\b/,
  // things that did not happen, came back empty or old, or keep happening
  /\b(?:did ?n[’']?t|did not|never|has ?n[’']?t|have ?n[’']?t|has not|have not) (?:finish|complet|run|ran|start|succeed|arriv|trigger|fire|sen[dt]|deliver|sync|updat|process|load)\w*/,
  /\bnot (?:going|coming|getting) (?:out|in|through)\b|\b(?:logged|kicked|signed) out\b/,
  /\b(?:is|are|was|were|came back|comes? back|returns?|returning|shows?|showing) empty\b|\bempty (?:results?|responses?|pages?|carts?|lists?|body|bodies)\b/,
  /\bforever\b|\b(?:constantly|continuously|repeatedly|over and over)\b/,
  /\bexpired\b|\bstale\b|\boutdated\b|\bout[ -]of[ -]date\b/,
  // where the time goes, and incident words
  /\bbottleneck\w*|\bcontention\b|\bslowdowns?\b|\bhot ?spots?\b|\brca\b|\bsev ?[0-4]\b/
]

/**
 * Questions about what a word means ("explain what a p99 is", "what does SLO stand for"): not a
 * diagnosis, whatever symptom vocabulary they name.
 */
const DEFINITION_PATTERNS: ReadonlyArray<RegExp> = [
  /^(?:please )?(?:explain|define|describe) (?:what (?:an? |the )?[\w-]+ (?:is|are|means?)\b|the (?:term|concept|difference)\b)/,
  /\bwhat (?:does|do) (?:an? |the )?[\w-]+ (?:mean|stand for)\b/,
  /^what(?:[’']s| is) an? [\w-]+\?*$/,
  /\bwhat(?:[’']s| is) the difference between\b/
]

/** CJK vocabulary (substring match: no word boundaries). */
const DIAGNOSIS_CJK = [
  "报错",
  "错误",
  "失败",
  "慢",
  "超时",
  "故障",
  "异常",
  "告警",
  "为什么",
  "挂了",
  "宕机",
  "不能",
  "无法",
  "健康",
  "状态",
  "正常吗",
  "有问题",
  "重启",
  "崩溃",
  "内存",
  "延迟",
  "卡住",
  "卡顿",
  "不可用",
  "报警",
  "打不开",
  "访问不了",
  "掉线",
  "泄漏",
  "排查",
  "原因",
  "怎么回事",
  "出什么事"
]

/** A service named the way deployments name them: `checkout-service`, `cart-svc`, `orders-api`. */
const SERVICE_NAME = /\b[a-z][a-z0-9-]{0,60}-(?:service|svc|api|worker|gateway)\b/

/** Questions asking how to do something ("how do I deploy ...", "how to add ..."). */
const HOW_TO =
  /\bhow (?:do|can|should|would) (?:i|we|you|one)\b|\bhow to\b|\b(?:steps|guide|tutorial) (?:to|for)\b/

/**
 * Deterministic keyword routing (the offline model's router and the router's fallback): a
 * question that describes a production symptom ("what is wrong with checkout?", "checkout not
 * working", "why can't users log in") is `diagnosis`; anything else is `other`.
 */
export const classifyIntentByKeywords = (question: string): Intent => {
  const q = question.toLowerCase().trim()
  if (DEFINITION_PATTERNS.some((re) => re.test(q))) return "other"
  if (DIAGNOSIS_PATTERNS.some((re) => re.test(q)) || DIAGNOSIS_CJK.some((k) => q.includes(k)))
    return "diagnosis"
  // A question about a named service ("order-service?", "tell me about cart-svc") asks how it
  // is doing, unless it asks how to do something with it.
  if (SERVICE_NAME.test(q) && !HOW_TO.test(q)) return "diagnosis"
  // Typed in a hurry ("chckout erors"): a symptom word one edit away.
  return hasMisspelledSymptom(q) ? "diagnosis" : "other"
}

/** Symptom words long enough that one edit away is still the word (`erors`, `timout`, `crashs`). */
const SYMPTOM_WORDS = [
  "error",
  "errors",
  "failing",
  "failed",
  "failure",
  "failures",
  "timeout",
  "timeouts",
  "crash",
  "crashes",
  "crashed",
  "crashing",
  "broken",
  "latency",
  "exception",
  "exceptions",
  "outage",
  "restarting",
  "unavailable"
]

/** Whether `a` and `b` differ by at most one insertion, deletion, substitution or transposition. */
const oneEditApart = (a: string, b: string): boolean => {
  if (Math.abs(a.length - b.length) > 1) return false
  let i = 0
  while (i < a.length && i < b.length && a[i] === b[i]) i++
  if (a.slice(i + 1) === b.slice(i + 1)) return true // substitution (or equal)
  if (a.slice(i) === b.slice(i + 1) || a.slice(i + 1) === b.slice(i)) return true // insertion / deletion
  return a[i] === b[i + 1] && a[i + 1] === b[i] && a.slice(i + 2) === b.slice(i + 2) // transposition
}

const hasMisspelledSymptom = (q: string): boolean =>
  (q.match(/[a-z]{5,12}/g) ?? []).some((word) => SYMPTOM_WORDS.some((s) => oneEditApart(word, s)))

;/\bhow (?:do|can|should|would) (?:i|we|you|one)\b|\bhow to\b|\b(?:steps|guide|tutorial) (?:to|for)\b/

/** Parses `{"intent": ...}` from model text; null when absent or unknown. */
export const parseIntent = (text: string | null): Intent | null => {
  if (!text) return null
  const match = /"intent"\s*:\s*"([a-z_]+)"/i.exec(text)
  const raw = (match?.[1] ?? text.trim().replace(/^["']|["']$/g, "")).toLowerCase()
  return raw === "diagnosis" ? "diagnosis" : raw === "other" ? "other" : null
}

/** What the router decided about a question: intent, its source and the resolved time window. */
export interface RoutingResult {
  readonly intent: Intent
  /** `model` when the model answered, `fallback` when it failed or answered unparseably. */
  readonly source: "model" | "fallback"
  /**
   * The time window the question names, resolved against the run's clock and the tools' reach
   * (deterministic, before the model plans); `null` when it names none.
   */
  readonly window: ResolvedWindow | null
}

/** Options of the router (time window and lookback limits). */
export interface RouteOptions {
  /** Zone for times without one, and the window around a point in time. */
  readonly timeWindow?: TimeWindowOptions
  /** How far back the tools reach. Default {@link DEFAULT_MAX_LOOKBACK_MINUTES}. */
  readonly maxLookbackMinutes?: number
}

const windowPayload = (
  w: ResolvedWindow
): NonNullable<TimelinePayload<"ROUTING_DECISION">["time_window"]> => ({
  phrase: w.asked.phrase.slice(0, 80),
  asked_start: new Date(w.asked.start).toISOString(),
  asked_end: new Date(w.asked.end).toISOString(),
  start_time: w.start === null ? null : new Date(w.start).toISOString(),
  end_time: w.end === null ? null : new Date(w.end).toISOString(),
  honoured: w.note === null
})

/**
 * The router: one model call, recorded as router `MODEL_TOKEN_USAGE`, `ROUTING_ATTEMPT`,
 * `ROUTING_DECISION` (with the question's `time_window`, if it names one). A model failure or an unparseable answer falls back to keyword routing
 * (recorded as such: `source: "fallback"`); it never fails. A failed call still gets its ledger
 * entry, with unknown usage (`usage_available = false`), and `ROUTING_ATTEMPT` carries its
 * `error_reason`.
 */
export const routeQuestion = (
  run: RunContext,
  question: string,
  options: RouteOptions = {}
): Effect.Effect<RoutingResult, never, ChatModel> =>
  Effect.gen(function* () {
    const model = yield* ChatModel
    const answer = yield* Effect.result(
      model.chat({
        purpose: "router",
        responseFormat: "json",
        messages: [
          { role: "system", content: ROUTER_SYSTEM_PROMPT },
          { role: "user", content: question }
        ]
      })
    )
    let intent: Intent | null = null
    if (answer._tag === "Success") {
      yield* run.recorder.tokenUsage({
        component: "router",
        componentIndex: 1,
        model: answer.success.model,
        usage: answer.success.usage
      })
      intent = parseIntent(answer.success.message.content)
      yield* run.recorder.event(
        routingAttemptEvent({
          attempt: 1,
          outcome: intent ? "PARSED" : "UNPARSEABLE",
          model: answer.success.model
        })
      )
    } else {
      // The call was attempted: its usage is unknown (never 0), so the ledger is incomplete.
      yield* run.recorder.tokenUsage({
        component: "router",
        componentIndex: 1,
        model: UNKNOWN_MODEL,
        usage: null
      })
      yield* run.recorder.event(
        routingAttemptEvent({ attempt: 1, outcome: "MODEL_ERROR", error_reason: answer.failure.reason })
      )
    }
    const now = yield* Clock.currentTimeMillis
    const asked = extractTimeWindow(question, now, options.timeWindow)
    const window = asked
      ? resolveWindow(asked, now, {
          maxLookbackMinutes: options.maxLookbackMinutes ?? DEFAULT_MAX_LOOKBACK_MINUTES
        })
      : null
    const result: RoutingResult = intent
      ? { intent, source: "model", window }
      : { intent: classifyIntentByKeywords(question), source: "fallback", window }
    yield* run.recorder.event(
      routingDecisionEvent({
        intent: result.intent,
        source: result.source,
        ...(window ? { time_window: windowPayload(window) } : {})
      })
    )
    return result
  })

import { Effect, Exit, Layer } from "effect"
import {
  ChatModel,
  type ChatModelInfo,
  type ChatModelShape,
  type ChatPurpose,
  type ChatRequest,
  type ChatResponse,
  type ChatToolCall,
  ModelError,
  type ModelErrorReason
} from "../model.js"

/** One scripted model turn: what the model answers, and what the call it answers must look like. */
export interface ScriptedTurn {
  /** Names the turn in failure messages. */
  readonly label?: string
  /** The purpose the call must have (router, agent or semantic_guard). */
  readonly purpose?: ChatPurpose
  /**
   * Checks the call: returning `false` or a string (the reason) rejects it, and so does a throw
   * (e.g. a failed `expect`, with its message); anything else accepts it.
   */
  readonly expect?: (request: ChatRequest) => unknown
  /** The answer (or the `ModelError`) of this turn. */
  readonly reply: (request: ChatRequest) => Effect.Effect<ChatResponse, ModelError>
}

/** What every `ScriptedTurn` constructor accepts besides its answer. */
export interface ScriptedTurnOptions {
  readonly label?: string
  readonly purpose?: ChatPurpose
  /** See `ScriptedTurn.expect`. */
  readonly expect?: (request: ChatRequest) => unknown
  /** Reported usage: prompt = completion = `tokens`, total twice that; `null` = none reported. Default 10. */
  readonly tokens?: number | null
  /** Model name of the response. Default `scripted`. */
  readonly model?: string
}

/** One tool call of a scripted turn; `args` is sent as JSON text unless it already is a string. */
export interface ScriptedToolCall {
  readonly id: string
  readonly name: string
  readonly args: object | string
}

const checks = (options: ScriptedTurnOptions) => ({
  ...(options.label !== undefined ? { label: options.label } : {}),
  ...(options.purpose !== undefined ? { purpose: options.purpose } : {}),
  ...(options.expect !== undefined ? { expect: options.expect } : {})
})

const respond = (message: ChatResponse["message"], options: ScriptedTurnOptions): ScriptedTurn => {
  const tokens = options.tokens === undefined ? 10 : options.tokens
  const response: ChatResponse = {
    message,
    usage:
      tokens === null ? null : { promptTokens: tokens, completionTokens: tokens, totalTokens: 2 * tokens },
    model: options.model ?? "scripted"
  }
  return { ...checks(options), reply: () => Effect.succeed(response) }
}

const toChatToolCall = (call: ScriptedToolCall): ChatToolCall => ({
  id: call.id,
  name: call.name,
  arguments: typeof call.args === "string" ? call.args : JSON.stringify(call.args)
})

/** Constructors of `ScriptedTurn`s. */
export const ScriptedTurn = {
  /** A final text answer. */
  text: (content: string, options: ScriptedTurnOptions = {}): ScriptedTurn =>
    respond({ content, toolCalls: [] }, options),
  /** A text answer holding `value` as JSON (router and SemanticGuard answers). */
  json: (value: unknown, options: ScriptedTurnOptions = {}): ScriptedTurn =>
    respond({ content: JSON.stringify(value), toolCalls: [] }, options),
  /** One tool call. */
  toolCall: (
    id: string,
    name: string,
    args: object | string,
    options: ScriptedTurnOptions = {}
  ): ScriptedTurn => respond({ content: null, toolCalls: [toChatToolCall({ id, name, args })] }, options),
  /** Several tool calls in one turn. */
  toolCalls: (calls: ReadonlyArray<ScriptedToolCall>, options: ScriptedTurnOptions = {}): ScriptedTurn =>
    respond({ content: null, toolCalls: calls.map(toChatToolCall) }, options),
  /** A whole response, as given. */
  response: (response: ChatResponse, options: ScriptedTurnOptions = {}): ScriptedTurn => ({
    ...checks(options),
    reply: () => Effect.succeed(response)
  }),
  /** A failed call: a `ModelError`, or one of the given reason (1 attempt). */
  fail: (error: ModelError | ModelErrorReason, options: ScriptedTurnOptions = {}): ScriptedTurn => {
    const failure = typeof error === "string" ? new ModelError({ reason: error, attempts: 1 }) : error
    return { ...checks(options), reply: () => Effect.fail(failure) }
  },
  /** A call that never answers (a hung provider); it ends only when interrupted. */
  hang: (options: ScriptedTurnOptions = {}): ScriptedTurn => ({
    ...checks(options),
    reply: () => Effect.never
  }),
  /** Any answer computed from the request. */
  effect: (
    reply: (request: ChatRequest) => Effect.Effect<ChatResponse, ModelError>,
    options: ScriptedTurnOptions = {}
  ): ScriptedTurn => ({ ...checks(options), reply })
} as const

/** A defect of a `ScriptedChatModel`: a call the script did not expect, or turns it never used. */
export class ScriptViolation extends Error {
  override readonly name = "ScriptViolation"
}

/** Options of a `ScriptedChatModel`. */
export interface ScriptedChatModelOptions {
  /** `info` of the model (provider and model name for `chat` spans); default none. */
  readonly info?: ChatModelInfo
}

const describeCall = (request: ChatRequest): string => {
  const last = request.messages.at(-1)
  const text = last === undefined ? "" : `${last.role}: ${String(last.content ?? "").slice(0, 80)}`
  return `purpose "${request.purpose}", last message ${JSON.stringify(text)}`
}

const turnName = (index: number, turn: ScriptedTurn): string =>
  `turn ${index + 1}${turn.label !== undefined ? ` (${turn.label})` : ""}`

/** Why `turn` rejects `request`, or null when it accepts it. */
const rejection = (turn: ScriptedTurn, request: ChatRequest): string | null => {
  if (turn.purpose !== undefined && request.purpose !== turn.purpose)
    return `expected purpose "${turn.purpose}", got "${request.purpose}"`
  if (turn.expect === undefined) return null
  try {
    const verdict = turn.expect(request)
    if (verdict === false) return "its expectation returned false"
    if (typeof verdict === "string") return verdict
    return null
  } catch (error) {
    return error instanceof Error ? error.message : String(error)
  }
}

/**
 * A `ChatModel` for tests that answers with scripted turns, in order. A call beyond the script,
 * or one a turn's expectation rejects, dies with a `ScriptViolation` (a defect, never a
 * `ModelError` the code under test could handle); `verify()` and the close of `layer`'s scope
 * also report turns that were never used.
 */
export class ScriptedChatModel implements ChatModelShape {
  /** Every request received, in order (also the ones that violated the script). */
  readonly requests: ChatRequest[] = []
  /** What went against the script so far, one message each. */
  readonly violations: string[] = []
  readonly info?: ChatModelInfo
  readonly #turns: ReadonlyArray<ScriptedTurn>

  constructor(turns: ReadonlyArray<ScriptedTurn>, options: ScriptedChatModelOptions = {}) {
    this.#turns = turns
    if (options.info !== undefined) this.info = options.info
  }

  readonly chat = (request: ChatRequest): Effect.Effect<ChatResponse, ModelError> =>
    Effect.suspend(() => {
      const index = this.requests.length
      this.requests.push(request)
      const turn = this.#turns[index]
      if (turn === undefined)
        return this.#violate(
          `unexpected call ${index + 1} (${describeCall(request)}): the script has ${this.#turns.length} turn(s)`
        )
      const why = rejection(turn, request)
      if (why !== null)
        return this.#violate(`${turnName(index, turn)} rejected the call (${describeCall(request)}): ${why}`)
      return turn.reply(request)
    })

  /** The scripted turns no call has reached yet. */
  get unused(): ReadonlyArray<ScriptedTurn> {
    return this.#turns.slice(this.requests.length)
  }

  /** Throws a `ScriptViolation` when a call went against the script or a turn was never used. */
  verify(): void {
    const problems = [...this.violations]
    const unused = this.unused
    if (unused.length > 0) {
      const first = this.#turns.length - unused.length
      const names = unused.map((turn, i) => turnName(first + i, turn)).join(", ")
      problems.push(`${unused.length} of ${this.#turns.length} turn(s) never used: ${names}`)
    }
    if (problems.length > 0) throw new ScriptViolation(`ScriptedChatModel: ${problems.join("; ")}`)
  }

  /**
   * Provides this model as `ChatModel`. When the scope closes after a success, `verify()` runs:
   * a violation or an unused turn turns the success into a defect.
   */
  get layer(): Layer.Layer<ChatModel> {
    return Layer.effect(
      ChatModel,
      Effect.as(
        Effect.addFinalizer((exit) =>
          Exit.isSuccess(exit) ? Effect.sync(() => this.verify()) : Effect.void
        ),
        this
      )
    )
  }

  #violate(message: string): Effect.Effect<never> {
    const violation = new ScriptViolation(`ScriptedChatModel: ${message}`)
    this.violations.push(message)
    return Effect.die(violation)
  }
}

import { revealed, type TokenUsage } from "@aiops-harness/core"
import { Effect, Layer, type Redacted } from "effect"
import { z } from "zod"
import {
  type ChatMessage,
  ChatModel,
  type ChatModelShape,
  type ChatRequest,
  type ChatResponse,
  type ChatToolCall,
  ModelError
} from "./model.js"

/** Options of the OpenAI-compatible model client (endpoint, key, model, timeouts, retries). */
export interface OpenAICompatibleOptions {
  /** Base URL including the version path, e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`. */
  readonly baseUrl: string
  /**
   * Sent as `Authorization: Bearer <apiKey>` when non-empty. Pass it `Redacted` (e.g. from core's
   * `EnvConfig.secret`) so that logging the options cannot print it; it is revealed only into the header.
   */
  readonly apiKey?: string | Redacted.Redacted<string> | null
  readonly model: string
  /** `gen_ai.provider.name` of its `chat` spans (`openai`, `azure.ai.openai`, ...). Default `openai`. */
  readonly providerName?: string
  /** Time limit of one attempt (request and body), in milliseconds. Default 60 000. */
  readonly timeoutMs?: number
  /** Retries after the first attempt on 408/429/5xx, network errors and timeouts. Default 2. */
  readonly maxRetries?: number
  /** First backoff delay; doubles per retry. Default 500 ms. */
  readonly initialBackoffMs?: number
  /** Cap of the exponential backoff. Default 8 000 ms. */
  readonly maxBackoffMs?: number
  /** Cap applied to a server's `Retry-After`. Default 30 000 ms. */
  readonly maxRetryAfterMs?: number
  /** Sampling temperature. Default 0. */
  readonly temperature?: number
  /** Extra headers (e.g. provider-specific routing). */
  readonly headers?: Readonly<Record<string, string>>
  /**
   * Header that carries the key: `authorization` (default, `Bearer <apiKey>`) or a plain header
   * such as Azure OpenAI's `api-key`.
   */
  readonly apiKeyHeader?: string
  /** Query parameters of every request (Azure OpenAI: `{ "api-version": "2024-10-21" }`). */
  readonly query?: Readonly<Record<string, string>>
  /**
   * Ask for a streamed answer (`stream: true`, usage in the last chunk); the deltas are joined
   * into one response. A provider that answers with plain JSON anyway is read as such.
   */
  readonly stream?: boolean
  /** Receives each streamed content delta of an `agent` turn (the draft as it is written). */
  readonly onTextDelta?: (delta: string, purpose: ChatRequest["purpose"]) => void
  /** Injected fetch (default: the global one). */
  readonly fetch?: typeof fetch
}

const ToolCallWire = z.object({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({
    // an empty or missing name is kept: the ToolBoundary refuses it with a stable code
    name: z.string().nullish(),
    arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish()
  })
})

const CompletionWire = z.object({
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        message: z.object({
          content: z.string().nullish(),
          tool_calls: z.array(ToolCallWire).nullish()
        }),
        finish_reason: z.string().nullish()
      })
    )
    .min(1),
  // parsed leniently by `usageOf`: a partial or odd usage never makes a completion unreadable
  usage: z.unknown().optional()
})

const count = (v: unknown): number | null =>
  typeof v === "number" && Number.isSafeInteger(v) && v >= 0 ? v : null
const field = (o: unknown, key: string): unknown =>
  o !== null && typeof o === "object" && !Array.isArray(o) ? (o as Record<string, unknown>)[key] : undefined

/**
 * Token usage from a provider's `usage` object. Prompt and completion known: total as reported
 * (else their sum). Prompt and total known: completion is the rest. Anything less (missing,
 * `null`, only a total, negative or non-integer counts, a total below the prompt): `null`,
 * unknown, never zeros. Cached and reasoning tokens (OpenAI/Azure/DashScope `*_tokens_details`,
 * DeepSeek `prompt_cache_hit_tokens`) are details already included in the totals.
 */
export const usageOf = (
  raw: unknown
): { readonly usage: TokenUsage | null; readonly details?: ChatResponse["usageDetails"] } => {
  const prompt = count(field(raw, "prompt_tokens"))
  const completion = count(field(raw, "completion_tokens"))
  const total = count(field(raw, "total_tokens"))
  const cached =
    count(field(field(raw, "prompt_tokens_details"), "cached_tokens")) ??
    count(field(raw, "prompt_cache_hit_tokens"))
  const reasoning = count(field(field(raw, "completion_tokens_details"), "reasoning_tokens"))
  const details =
    cached !== null || reasoning !== null
      ? {
          ...(cached !== null ? { cachedTokens: cached } : {}),
          ...(reasoning !== null ? { reasoningTokens: reasoning } : {})
        }
      : undefined
  let usage: TokenUsage | null = null
  if (prompt !== null && completion !== null) {
    usage = { promptTokens: prompt, completionTokens: completion, totalTokens: total ?? prompt + completion }
  } else if (prompt !== null && total !== null && total >= prompt) {
    usage = { promptTokens: prompt, completionTokens: total - prompt, totalTokens: total }
  }
  return details ? { usage, details } : { usage }
}

const toolCallOf = (c: z.output<typeof ToolCallWire>): ChatToolCall => ({
  id: c.id && c.id.length > 0 ? c.id : `call-${crypto.randomUUID()}`,
  name: c.function.name ?? "",
  arguments:
    typeof c.function.arguments === "string"
      ? c.function.arguments
      : JSON.stringify(c.function.arguments ?? {})
})

const toWireMessage = (m: ChatMessage): Record<string, unknown> => {
  switch (m.role) {
    case "assistant":
      return m.toolCalls && m.toolCalls.length > 0
        ? {
            role: "assistant",
            content: m.content,
            tool_calls: m.toolCalls.map((c) => ({
              id: c.id,
              type: "function",
              function: { name: c.name, arguments: c.arguments }
            }))
          }
        : { role: "assistant", content: m.content ?? "" }
    case "tool":
      return { role: "tool", tool_call_id: m.toolCallId, content: m.content }
    default:
      return { role: m.role, content: m.content }
  }
}

/** Parses a chat-completions body into a `ChatResponse`; `usage: null` when absent or partial. */
export const parseChatCompletion = (
  body: unknown,
  fallbackModel: string
): { readonly ok: true; readonly response: ChatResponse } | { readonly ok: false } => {
  const parsed = CompletionWire.safeParse(body)
  if (!parsed.success) return { ok: false }
  const choice = parsed.data.choices[0]!
  const { usage, details } = usageOf(parsed.data.usage)
  return {
    ok: true,
    response: {
      message: {
        content: choice.message.content ?? null,
        toolCalls: (choice.message.tool_calls ?? []).map(toolCallOf)
      },
      usage,
      model: parsed.data.model ?? fallbackModel,
      ...(choice.finish_reason ? { finishReason: choice.finish_reason } : {}),
      ...(details ? { usageDetails: details } : {})
    }
  }
}

const ChunkWire = z.object({
  model: z.string().nullish(),
  choices: z
    .array(
      z.object({
        delta: z
          .object({
            content: z.string().nullish(),
            tool_calls: z
              .array(
                z.object({
                  index: z.number().int().nonnegative().nullish(),
                  id: z.string().nullish(),
                  function: z
                    .object({
                      name: z.string().nullish(),
                      arguments: z.union([z.string(), z.record(z.string(), z.unknown())]).nullish()
                    })
                    .nullish()
                })
              )
              .nullish()
          })
          .nullish(),
        finish_reason: z.string().nullish()
      })
    )
    .nullish(),
  usage: z.unknown().optional()
})

/**
 * Parses a streamed chat completion (`text/event-stream`: `data: {chunk}` lines, `data: [DONE]`)
 * into one `ChatResponse`: content deltas concatenated, tool-call fragments joined by `index`
 * (name and arguments arrive in pieces), the last `finish_reason`, and the last usage seen (sent
 * in the final chunk with `stream_options.include_usage`; some providers repeat it in every
 * chunk). `onText` receives each content delta. A stream without a single valid chunk is `ok: false`.
 */
export const parseChatCompletionStream = (
  text: string,
  fallbackModel: string,
  onText?: (delta: string) => void
): { readonly ok: true; readonly response: ChatResponse } | { readonly ok: false } => {
  let content: string | null = null
  let model: string | null = null
  let finishReason: string | null = null
  let rawUsage: unknown
  let chunks = 0
  const calls = new Map<number, { id: string | null; name: string; args: string }>()
  for (const line of text.split(/\r?\n/)) {
    if (!line.startsWith("data:")) continue
    const data = line.slice(5).trim()
    if (data === "" || data === "[DONE]") continue
    let json: unknown
    try {
      json = JSON.parse(data)
    } catch {
      return { ok: false }
    }
    const chunk = ChunkWire.safeParse(json)
    if (!chunk.success) return { ok: false }
    chunks++
    model = chunk.data.model ?? model
    if (chunk.data.usage !== undefined && chunk.data.usage !== null) rawUsage = chunk.data.usage
    for (const choice of chunk.data.choices ?? []) {
      const delta = choice.delta
      if (delta?.content) {
        content = (content ?? "") + delta.content
        onText?.(delta.content)
      }
      for (const [position, t] of (delta?.tool_calls ?? []).entries()) {
        const index = t.index ?? position
        const call = calls.get(index) ?? { id: null, name: "", args: "" }
        if (t.id) call.id = t.id
        if (t.function?.name) call.name += t.function.name
        const args = t.function?.arguments
        if (typeof args === "string") call.args += args
        else if (args) call.args = JSON.stringify(args)
        calls.set(index, call)
      }
      if (choice.finish_reason) finishReason = choice.finish_reason
    }
  }
  if (chunks === 0) return { ok: false }
  const { usage, details } = usageOf(rawUsage)
  const toolCalls = [...calls.entries()]
    .sort(([a], [b]) => a - b)
    .map(([, c]) => toolCallOf({ id: c.id, function: { name: c.name, arguments: c.args } }))
  return {
    ok: true,
    response: {
      message: { content, toolCalls },
      usage,
      model: model ?? fallbackModel,
      ...(finishReason ? { finishReason } : {}),
      ...(details ? { usageDetails: details } : {})
    }
  }
}

/** `Retry-After` in milliseconds (delta-seconds or HTTP date), or null. */
export const parseRetryAfter = (value: string | null, now: number = Date.now()): number | null => {
  if (value === null) return null
  const trimmed = value.trim()
  if (/^\d+(\.\d+)?$/.test(trimmed)) return Math.round(Number(trimmed) * 1000)
  const date = Date.parse(trimmed)
  return Number.isNaN(date) ? null : Math.max(0, date - now)
}

/** A response's retry hint: Azure's `retry-after-ms`, else `Retry-After`. */
const retryAfterOf = (res: { readonly retryAfter: string | null; readonly retryAfterMs: string | null }) => {
  const ms = res.retryAfterMs === null ? Number.NaN : Number(res.retryAfterMs.trim())
  return Number.isFinite(ms) && ms >= 0 ? Math.round(ms) : parseRetryAfter(res.retryAfter)
}

/** Delay before retry number `attempt` (1-based): `Retry-After` capped, else capped exponential backoff. */
export const retryDelayMs = (
  attempt: number,
  retryAfterMs: number | null,
  policy: {
    readonly initialBackoffMs: number
    readonly maxBackoffMs: number
    readonly maxRetryAfterMs: number
  }
): number =>
  retryAfterMs !== null
    ? Math.min(retryAfterMs, policy.maxRetryAfterMs)
    : Math.min(policy.maxBackoffMs, policy.initialBackoffMs * 2 ** (attempt - 1))

type Attempt =
  | { readonly _tag: "Done"; readonly response: ChatResponse }
  | { readonly _tag: "Retry"; readonly error: ModelError; readonly retryAfterMs: number | null }
  | { readonly _tag: "Fatal"; readonly error: ModelError }

const isTimeout = (e: unknown): boolean =>
  e !== null && typeof e === "object" && "name" in e && (e.name === "TimeoutError" || e.name === "AbortError")

/**
 * Chat-completions over `fetch` (OpenAI, vLLM, Ollama, DashScope, ... all speak it):
 * tools as JSON Schema functions, `tool_calls` parsing, retries with exponential backoff on
 * 408/429/5xx, network errors and timeouts (honouring `Retry-After` up to a cap), a per-attempt
 * timeout via `AbortSignal`, and `usage: null` when the provider reports none.
 */
export const makeOpenAICompatibleModel = (options: OpenAICompatibleOptions): ChatModelShape => {
  const search = options.query
    ? `?${new URLSearchParams(options.query as Record<string, string>).toString()}`
    : ""
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions${search}`
  const timeoutMs = options.timeoutMs ?? 60_000
  const maxRetries = Math.max(0, Math.floor(options.maxRetries ?? 2))
  const initialBackoffMs = options.initialBackoffMs ?? 500
  const maxBackoffMs = options.maxBackoffMs ?? 8_000
  const maxRetryAfterMs = options.maxRetryAfterMs ?? 30_000
  const doFetch = options.fetch ?? globalThis.fetch
  const headers: Record<string, string> = {
    "content-type": "application/json",
    accept: "application/json",
    ...options.headers
  }
  const apiKey = options.apiKey == null ? "" : revealed(options.apiKey)
  if (apiKey) {
    const name = (options.apiKeyHeader ?? "authorization").toLowerCase()
    headers[name] = name === "authorization" ? `Bearer ${apiKey}` : apiKey
  }
  if (options.stream) headers.accept = "text/event-stream, application/json"

  const attemptOnce = (
    body: string,
    attempts: number,
    purpose: ChatRequest["purpose"]
  ): Effect.Effect<Attempt> =>
    Effect.tryPromise({
      try: async (signal) => {
        // A controller and timer held here, not `AbortSignal.timeout`: on Node 20 an unreferenced
        // timeout signal can be garbage-collected and never fire, hanging the call for good.
        const controller = new AbortController()
        const onAbort = () => controller.abort(signal.reason)
        signal.addEventListener("abort", onAbort, { once: true })
        const timer = setTimeout(
          () => controller.abort(new DOMException("model call timed out", "TimeoutError")),
          timeoutMs
        )
        try {
          const res = await doFetch(url, { method: "POST", headers, body, signal: controller.signal })
          const text = await res.text()
          return {
            status: res.status,
            retryAfter: res.headers.get("retry-after"),
            // Azure OpenAI: milliseconds, more precise than `retry-after`
            retryAfterMs: res.headers.get("retry-after-ms"),
            eventStream: (res.headers.get("content-type") ?? "").includes("text/event-stream"),
            text
          }
        } finally {
          clearTimeout(timer)
          signal.removeEventListener("abort", onAbort)
        }
      },
      catch: (e) => e
    }).pipe(
      // Last line of defence: the Effect clock bounds the attempt even if the fetch ignores its signal.
      Effect.timeoutOrElse({
        duration: timeoutMs + 1_000,
        orElse: () => Effect.fail(new DOMException("model call timed out", "TimeoutError"))
      }),
      Effect.map((res): Attempt => {
        if (res.status === 429) {
          return {
            _tag: "Retry",
            error: new ModelError({ reason: "RATE_LIMITED", status: 429, attempts }),
            retryAfterMs: retryAfterOf(res)
          }
        }
        if (res.status === 408 || res.status >= 500) {
          return {
            _tag: "Retry",
            error: new ModelError({ reason: "HTTP_STATUS", status: res.status, attempts }),
            retryAfterMs: retryAfterOf(res)
          }
        }
        if (res.status < 200 || res.status >= 300) {
          return {
            _tag: "Fatal",
            error: new ModelError({ reason: "HTTP_STATUS", status: res.status, attempts })
          }
        }
        if (res.eventStream) {
          const onText = options.onTextDelta
          const streamed = parseChatCompletionStream(
            res.text,
            options.model,
            onText ? (delta) => onText(delta, purpose) : undefined
          )
          return streamed.ok
            ? { _tag: "Done", response: streamed.response }
            : {
                _tag: "Fatal",
                error: new ModelError({
                  reason: "MALFORMED_RESPONSE",
                  status: res.status,
                  attempts,
                  detail: "unreadable event stream"
                })
              }
        }
        let json: unknown
        try {
          json = JSON.parse(res.text)
        } catch {
          return {
            _tag: "Fatal",
            error: new ModelError({
              reason: "MALFORMED_RESPONSE",
              status: res.status,
              attempts,
              detail: "not JSON"
            })
          }
        }
        const parsed = parseChatCompletion(json, options.model)
        return parsed.ok
          ? { _tag: "Done", response: parsed.response }
          : {
              _tag: "Fatal",
              error: new ModelError({
                reason: "MALFORMED_RESPONSE",
                status: res.status,
                attempts,
                detail: "unexpected shape"
              })
            }
      }),
      Effect.catch((e) =>
        Effect.succeed<Attempt>({
          _tag: "Retry",
          error: new ModelError({ reason: isTimeout(e) ? "TIMEOUT" : "NETWORK", attempts }),
          retryAfterMs: null
        })
      )
    )

  const chat = (request: ChatRequest): Effect.Effect<ChatResponse, ModelError> =>
    Effect.gen(function* () {
      const tools = request.tools ?? []
      const payload: Record<string, unknown> = {
        model: options.model,
        messages: request.messages.map(toWireMessage),
        temperature: options.temperature ?? 0,
        stream: options.stream === true,
        ...(options.stream ? { stream_options: { include_usage: true } } : {})
      }
      if (tools.length > 0) {
        payload.tools = tools.map((t) => ({
          type: "function",
          function: { name: t.name, description: t.description, parameters: t.parameters }
        }))
        payload.tool_choice = "auto"
      } else if (request.responseFormat === "json") {
        payload.response_format = { type: "json_object" }
      }
      const body = JSON.stringify(payload)
      for (let attempt = 1; ; attempt++) {
        const result = yield* attemptOnce(body, attempt, request.purpose)
        if (result._tag === "Done") return result.response
        if (result._tag === "Fatal" || attempt > maxRetries) return yield* Effect.fail(result.error)
        yield* Effect.sleep(
          retryDelayMs(attempt, result.retryAfterMs, { initialBackoffMs, maxBackoffMs, maxRetryAfterMs })
        )
      }
    })

  return { chat, info: { provider: options.providerName ?? "openai", model: options.model } }
}

/** Model client for OpenAI-compatible chat completion APIs: constructor and layer. */
export const OpenAICompatibleModel = {
  /** Makes the client (see `makeOpenAICompatibleModel`). */
  make: makeOpenAICompatibleModel,
  /** The client as the `ChatModel` service. */
  layer: (options: OpenAICompatibleOptions): Layer.Layer<ChatModel> =>
    Layer.succeed(ChatModel, makeOpenAICompatibleModel(options))
}

import type { TokenUsage } from "@aiops-harness/core"
import { Effect, Layer } from "effect"
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

export interface OpenAICompatibleOptions {
  /** Base URL including the version path, e.g. `https://api.openai.com/v1`, `http://127.0.0.1:11434/v1`. */
  readonly baseUrl: string
  /** Sent as `Authorization: Bearer <apiKey>` when non-empty. */
  readonly apiKey?: string | null
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
  /** Injected fetch (default: the global one). */
  readonly fetch?: typeof fetch
}

const ToolCallWire = z.object({
  id: z.string().nullish(),
  type: z.string().nullish(),
  function: z.object({
    name: z.string().min(1),
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
        })
      })
    )
    .min(1),
  usage: z
    .object({
      prompt_tokens: z.number().int().nonnegative(),
      completion_tokens: z.number().int().nonnegative().nullish(),
      total_tokens: z.number().int().nonnegative().nullish()
    })
    .nullish()
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

/** Parses a chat-completions body into a `ChatResponse`; `usage: null` when absent. */
export const parseChatCompletion = (
  body: unknown,
  fallbackModel: string
): { readonly ok: true; readonly response: ChatResponse } | { readonly ok: false } => {
  const parsed = CompletionWire.safeParse(body)
  if (!parsed.success) return { ok: false }
  const choice = parsed.data.choices[0]!
  const toolCalls: ChatToolCall[] = (choice.message.tool_calls ?? []).map((c) => ({
    id: c.id && c.id.length > 0 ? c.id : `call-${crypto.randomUUID()}`,
    name: c.function.name,
    arguments:
      typeof c.function.arguments === "string"
        ? c.function.arguments
        : JSON.stringify(c.function.arguments ?? {})
  }))
  const u = parsed.data.usage
  const usage: TokenUsage | null = u
    ? (() => {
        const total = u.total_tokens ?? u.prompt_tokens + (u.completion_tokens ?? 0)
        return {
          promptTokens: u.prompt_tokens,
          completionTokens: u.completion_tokens ?? Math.max(0, total - u.prompt_tokens),
          totalTokens: total
        }
      })()
    : null
  return {
    ok: true,
    response: {
      message: { content: choice.message.content ?? null, toolCalls },
      usage,
      model: parsed.data.model ?? fallbackModel
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
  const url = `${options.baseUrl.replace(/\/+$/, "")}/chat/completions`
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
  if (options.apiKey) headers.authorization = `Bearer ${options.apiKey}`

  const attemptOnce = (body: string, attempts: number): Effect.Effect<Attempt> =>
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
          return { status: res.status, retryAfter: res.headers.get("retry-after"), text }
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
            retryAfterMs: parseRetryAfter(res.retryAfter)
          }
        }
        if (res.status === 408 || res.status >= 500) {
          return {
            _tag: "Retry",
            error: new ModelError({ reason: "HTTP_STATUS", status: res.status, attempts }),
            retryAfterMs: parseRetryAfter(res.retryAfter)
          }
        }
        if (res.status < 200 || res.status >= 300) {
          return {
            _tag: "Fatal",
            error: new ModelError({ reason: "HTTP_STATUS", status: res.status, attempts })
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
        stream: false
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
        const result = yield* attemptOnce(body, attempt)
        if (result._tag === "Done") return result.response
        if (result._tag === "Fatal" || attempt > maxRetries) return yield* Effect.fail(result.error)
        yield* Effect.sleep(
          retryDelayMs(attempt, result.retryAfterMs, { initialBackoffMs, maxBackoffMs, maxRetryAfterMs })
        )
      }
    })

  return { chat, info: { provider: options.providerName ?? "openai", model: options.model } }
}

export const OpenAICompatibleModel = {
  make: makeOpenAICompatibleModel,
  layer: (options: OpenAICompatibleOptions): Layer.Layer<ChatModel> =>
    Layer.succeed(ChatModel, makeOpenAICompatibleModel(options))
}

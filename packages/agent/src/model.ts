import { requestJsonSchema, type TokenUsage, type ToolDefinition } from "@aiops-harness/core"
import { Context, Data, type Effect } from "effect"

/** Which harness component makes a model call (router, agent turn or SemanticGuard). */
export type ChatPurpose = "router" | "agent" | "semantic_guard"

/** One tool call as the model produced it. `arguments` is JSON text, untrusted. */
export interface ChatToolCall {
  readonly id: string
  readonly name: string
  readonly arguments: string
}

/** One message of a chat conversation with the model (system, user, assistant or tool result). */
export type ChatMessage =
  | { readonly role: "system"; readonly content: string }
  | { readonly role: "user"; readonly content: string }
  | {
      readonly role: "assistant"
      readonly content: string | null
      readonly toolCalls?: ReadonlyArray<ChatToolCall>
    }
  | { readonly role: "tool"; readonly toolCallId: string; readonly content: string }

/** A model-facing tool: name, description and the JSON Schema of its request. */
export interface ChatToolSpec {
  readonly name: string
  readonly description: string
  readonly parameters: Record<string, unknown>
}

/** One model call: purpose, messages, offered tools and answer format. */
export interface ChatRequest {
  readonly purpose: ChatPurpose
  readonly messages: ReadonlyArray<ChatMessage>
  readonly tools?: ReadonlyArray<ChatToolSpec>
  /** `json` asks for a JSON object answer (sent only when no tools are offered). */
  readonly responseFormat?: "text" | "json"
}

/** The model's answer: content and tool calls, plus reported usage and model name. */
export interface ChatResponse {
  readonly message: { readonly content: string | null; readonly toolCalls: ReadonlyArray<ChatToolCall> }
  /** `null` when the provider reported no usage: never invent zeros. */
  readonly usage: TokenUsage | null
  readonly model: string
  /**
   * Why the provider stopped (`stop`, `tool_calls`, `length`, `content_filter`, ...), when it
   * said; `length` means the content or tool arguments were cut.
   */
  readonly finishReason?: string
  /** Parts of the usage the provider broke out (already included in its totals). */
  readonly usageDetails?: { readonly cachedTokens?: number; readonly reasoningTokens?: number }
}

/** Why a model call failed (in `ModelError`). */
export type ModelErrorReason =
  | "TIMEOUT"
  | "NETWORK"
  | "RATE_LIMITED"
  | "HTTP_STATUS"
  | "MALFORMED_RESPONSE"
  | "UNSUPPORTED_REQUEST"

/** A model call failed. Internal only: the model and the user never see `detail`. */
export class ModelError extends Data.TaggedError("ModelError")<{
  readonly reason: ModelErrorReason
  /** HTTP status of the last attempt, when there was one. */
  readonly status?: number
  /** Attempts made (1 + retries). */
  readonly attempts: number
  readonly detail?: string
}> {}

/** Who serves a model: `gen_ai.provider.name` and `gen_ai.request.model` of its `chat` spans. */
export interface ChatModelInfo {
  readonly provider: string
  readonly model: string
}

/** Operations of the `ChatModel` service: the one way the harness calls a model. */
export interface ChatModelShape {
  /** Sends one chat request; fails with `ModelError`. */
  readonly chat: (request: ChatRequest) => Effect.Effect<ChatResponse, ModelError>
  /** Provider and configured model, for tracing (optional: spans are then named `chat`). */
  readonly info?: ChatModelInfo
}

/** The model interface the router, the diagnosis loop and the semantic guard use. */
export class ChatModel extends Context.Service<ChatModel, ChatModelShape>()(
  "@aiops-harness/agent/ChatModel"
) {}

/** Model-facing tool specs: JSON Schema of each tool's zod request schema (core's `requestJsonSchema`). */
export const toolSpecsFor = (tools: ReadonlyArray<ToolDefinition>): ReadonlyArray<ChatToolSpec> =>
  tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: requestJsonSchema(tool.requestSchema)
  }))

/** Rough token estimate (4 characters per token) for providers that must report plausible usage. */
export const estimateTokens = (text: string): number => Math.max(1, Math.ceil(text.length / 4))

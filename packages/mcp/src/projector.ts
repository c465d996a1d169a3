import {
  BackendError,
  type Json,
  jsonBytes,
  type JsonObject,
  type Projection,
  ProjectionError,
  type Projector
} from "@aiops-harness/core"
import { cutText, redactValue } from "@aiops-harness/projectors"
import { Effect } from "effect"
import type { JsonProjectorConfig } from "./config.js"

/** What an external `tools/call` returned, as kept in the canonical record. */
export interface ExternalRaw {
  readonly content?: ReadonlyArray<Json>
  readonly structuredContent?: JsonObject
  readonly isError?: boolean
}

/** Default bounds of the generic JSON projector. */
export const DEFAULT_JSON_PROJECTOR: Required<Omit<JsonProjectorConfig, "fields">> = {
  maxBytes: 8192,
  maxItems: 50,
  maxStringChars: 2000
}

/** The result value of a call: structured content, else the text blocks (parsed when one is JSON). */
export const resultValueOf = (raw: ExternalRaw): { readonly value: Json; readonly nonText: number } => {
  if (raw.structuredContent !== undefined) return { value: raw.structuredContent, nonText: 0 }
  const blocks = raw.content ?? []
  const texts: string[] = []
  let nonText = 0
  for (const block of blocks) {
    const b = block as { readonly type?: unknown; readonly text?: unknown }
    if (b !== null && b.type === "text" && typeof b.text === "string") texts.push(b.text)
    else nonText++
  }
  if (texts.length === 1) {
    try {
      return { value: JSON.parse(texts[0]!) as Json, nonText }
    } catch {
      return { value: texts[0]!, nonText }
    }
  }
  return { value: texts, nonText }
}

/** A tree of allowed paths: `true` keeps the whole value, a subtree keeps only its fields. */
type FieldTree = { [key: string]: FieldTree | true }

/** `["items.id", "items.title", "total"]` -> `{ items: { id: true, title: true }, total: true }`. */
export const fieldTree = (fields: ReadonlyArray<string>): FieldTree => {
  const tree: FieldTree = {}
  for (const path of fields) {
    let node = tree
    const parts = path.split(".")
    parts.forEach((part, i) => {
      if (i === parts.length - 1) node[part] = true
      else {
        const next = node[part]
        if (next === true) return
        if (next === undefined) {
          const created: FieldTree = {}
          node[part] = created
          node = created
        } else node = next
      }
    })
  }
  return tree
}

/** Keeps the allowed paths; arrays are traversed (a path names the fields of their items). */
const pick = (value: Json, tree: FieldTree | null): Json => {
  if (tree === null) return value
  if (Array.isArray(value)) return value.map((item) => pick(item, tree))
  if (value === null || typeof value !== "object") return null
  const out: Record<string, Json> = {}
  for (const [key, sub] of Object.entries(tree)) {
    if (!Object.hasOwn(value, key)) continue
    const item = (value as { readonly [k: string]: Json })[key]!
    out[key] = sub === true ? item : pick(item, sub)
  }
  return out
}

/** Cuts strings and arrays at any depth; reports whether anything was cut. */
const bound = (
  value: Json,
  limits: { maxItems: number; maxStringChars: number },
  cut: { truncated: boolean }
): Json => {
  if (typeof value === "string") {
    const out = cutText(value, limits.maxStringChars)
    if (out !== value) cut.truncated = true
    return out
  }
  if (value === null || typeof value !== "object") return value
  if (Array.isArray(value)) {
    if (value.length > limits.maxItems) cut.truncated = true
    return value.slice(0, limits.maxItems).map((item) => bound(item, limits, cut))
  }
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, bound(v, limits, cut)]))
}

/** The longest array in a value (the one to shorten when over the byte bound), or null. */
const longestArray = (value: Json): Json[] | null => {
  let best: Json[] | null = null
  const visit = (v: Json) => {
    if (v === null || typeof v !== "object") return
    if (Array.isArray(v)) {
      if (v.length > 0 && (best === null || v.length > best.length)) best = v as Json[]
      v.forEach(visit)
    } else Object.values(v).forEach(visit)
  }
  visit(value)
  return best
}

const isEmpty = (value: Json): boolean =>
  value === null ||
  value === "" ||
  (Array.isArray(value) && value.length === 0) ||
  (typeof value === "object" && !Array.isArray(value) && Object.keys(value).length === 0)

/**
 * The generic JSON projector of external MCP tools, pure: the call's result value (structured
 * content, else text), the field allowlist, every string redacted (`redactValue`: the whole
 * catalogue, plus secret-named keys), strings and arrays cut, then array items dropped from the
 * end until the observation fits its byte bound (`PROJECTION_ERROR` `NOTHING_FITS` if it never
 * does). An empty result is `NO_EVIDENCE`; a result flagged `isError` is a `BackendError`.
 */
export const projectJson =
  (options: {
    readonly server: string
    readonly toolName: string
    readonly config?: JsonProjectorConfig
  }): Projector<unknown, ExternalRaw> =>
  (input) =>
    Effect.suspend((): Effect.Effect<Projection, ProjectionError | BackendError> => {
      if (input.raw.isError === true) {
        return Effect.fail(new BackendError({ toolName: options.toolName, cause: "tool result isError" }))
      }
      const config = { ...DEFAULT_JSON_PROJECTOR, ...options.config }
      const { value, nonText } = resultValueOf(input.raw)
      const fields = options.config?.fields ? fieldTree(options.config.fields) : null
      const redacted = redactValue(pick(value, fields))
      const cut = { truncated: false }
      // A mutable copy: the byte bound below drops items in place.
      const result = structuredClone(bound(redacted, config, cut)) as Json
      const build = (): JsonObject => ({
        server: options.server,
        result,
        ...(nonText > 0 ? { dropped_non_text_blocks: nonText } : {})
      })
      const maxBytes = Math.min(config.maxBytes, input.maxBytes)
      let observation = build()
      while (jsonBytes(observation) > maxBytes) {
        const list = longestArray(result)
        if (list === null) return Effect.fail(new ProjectionError({ reason: "NOTHING_FITS" }))
        list.pop()
        cut.truncated = true
        observation = build()
      }
      const projection: Projection = {
        evidenceStatus: isEmpty(value) ? "NO_EVIDENCE" : "EVIDENCE_FOUND",
        observation,
        truncated: cut.truncated,
        returnedCount: Array.isArray(value) ? value.length : isEmpty(value) ? 0 : 1
      }
      return Effect.succeed(projection)
    })

import { readdir, readFile } from "node:fs/promises"
import { join, relative, sep } from "node:path"
import type { BackendError } from "@aiops-harness/core"
import { Context, Data, Effect, Layer } from "effect"
import MiniSearch from "minisearch"
import type { KnowledgeEvidence, KnowledgeRaw, RelevanceLevel } from "../contracts/results.js"
import { chunkMarkdown, type MarkdownChunk } from "./markdown.js"

/** One knowledge search: query text and how many evidence blocks to return. */
export interface KnowledgeSearchRequest {
  readonly query: string
  readonly topK: number
}

/** Operations of the `KnowledgeSearch` service (the `lookup_knowledge` backend). */
export interface KnowledgeSearchShape {
  /** Searches the knowledge base. A search without hits succeeds with `evidence: []`. */
  readonly search: (request: KnowledgeSearchRequest) => Effect.Effect<KnowledgeRaw, BackendError>
}

/**
 * Knowledge search as the `lookup_knowledge` tool consumes it. Implement it for an external
 * search service, or use {@link EmbeddedKnowledgeSearch}.
 */
export class KnowledgeSearch extends Context.Service<KnowledgeSearch, KnowledgeSearchShape>()(
  "@aiops-harness/tools/KnowledgeSearch"
) {}

/** A runbook given as text. `path` is relative (it becomes the evidence `source`). */
export interface KnowledgeDocument {
  readonly path: string
  readonly markdown: string
}

/** Building an embedded index failed (unreadable directory or file, no documents). */
export class KnowledgeIndexError extends Data.TaggedError("KnowledgeIndexError")<{
  readonly reason: "READ_FAILED" | "NO_DOCUMENTS"
  readonly path: string
  readonly cause?: unknown
}> {}

/**
 * Relevance from `score / bestScore` of the same search: at least `high` -> HIGH, `medium`
 * -> MEDIUM, `low` -> LOW, anything else -> REFERENCE (still evidence, just weaker).
 */
export interface RelevanceThresholds {
  readonly high: number
  readonly medium: number
  readonly low: number
}

/** Default `RelevanceThresholds`. */
export const defaultRelevanceThresholds: RelevanceThresholds = { high: 0.75, medium: 0.5, low: 0.25 }

/** The relevance level of a hit from its score relative to the best score (see `RelevanceThresholds`). */
export const relevanceLevelOf = (
  score: number,
  bestScore: number,
  thresholds: RelevanceThresholds = defaultRelevanceThresholds
): RelevanceLevel => {
  const ratio = bestScore > 0 ? score / bestScore : 0
  if (ratio >= thresholds.high) return "HIGH"
  if (ratio >= thresholds.medium) return "MEDIUM"
  if (ratio >= thresholds.low) return "LOW"
  return "REFERENCE"
}

/** Options of the embedded knowledge search (content and `topK` bounds, relevance thresholds). */
export interface EmbeddedKnowledgeOptions {
  /** Maximum characters of `content` per evidence block (default 1200). */
  readonly maxContentChars?: number
  /** Upper bound of `topK` whatever the caller asks (default 10). */
  readonly maxTopK?: number
  readonly relevance?: Partial<RelevanceThresholds>
}

const STOP_WORDS = new Set(
  "a an and are as at be by do does for from how i in is it of on or the this to was what when where which why with".split(
    " "
  )
)

const processTerm = (term: string): string | null => {
  const t = term.toLowerCase()
  return t.length < 2 || STOP_WORDS.has(t) ? null : t
}

const truncate = (text: string, max: number): string =>
  text.length <= max ? text : `${text.slice(0, Math.max(0, max - 1)).trimEnd()}…`

interface IndexedChunk {
  readonly id: string
  readonly title: string
  readonly headings: string
  readonly text: string
}

const normalizePath = (path: string): string => path.split(sep).join("/").replace(/^\.\//, "")

/**
 * Embedded knowledge search: minisearch (BM25) over heading-delimited sections of Markdown
 * runbooks. Evidence `source` is `<relative path>#<anchor>`, `breadcrumb` is
 * `Runbook title > Section > Subsection`, `relevance_level` is derived from the score relative
 * to the best hit; scores go to `retrieval_trace` only.
 */
export const makeEmbeddedKnowledgeSearch = (
  documents: ReadonlyArray<KnowledgeDocument>,
  options: EmbeddedKnowledgeOptions = {}
): KnowledgeSearchShape & { readonly chunks: ReadonlyArray<MarkdownChunk> } => {
  const maxContentChars = options.maxContentChars ?? 1200
  const maxTopK = options.maxTopK ?? 10
  const thresholds = { ...defaultRelevanceThresholds, ...options.relevance }
  const chunks = [...documents]
    .map((d) => ({ ...d, path: normalizePath(d.path) }))
    .sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0))
    .flatMap((d) => chunkMarkdown(d.path, d.markdown))
  const byId = new Map(chunks.map((c) => [c.id, c]))
  const index = new MiniSearch<IndexedChunk>({
    fields: ["title", "headings", "text"],
    idField: "id",
    processTerm,
    searchOptions: {
      boost: { headings: 2, title: 1.5 },
      prefix: (term) => term.length >= 4,
      fuzzy: (term) => (term.length >= 6 ? 0.15 : false),
      combineWith: "OR"
    }
  })
  index.addAll(
    chunks.map((c) => ({ id: c.id, title: c.title, headings: c.breadcrumb.slice(1).join(" "), text: c.text }))
  )

  const search = ({ query, topK }: KnowledgeSearchRequest): Effect.Effect<KnowledgeRaw, BackendError> =>
    Effect.sync(() => {
      const k = Math.max(1, Math.min(maxTopK, Math.floor(topK)))
      const results = query.trim() === "" ? [] : index.search(query)
      const best = results[0]?.score ?? 0
      const hits = results.slice(0, k)
      const evidence: KnowledgeEvidence[] = []
      for (const hit of hits) {
        const chunk = byId.get(String(hit.id))
        if (!chunk) continue
        evidence.push({
          source: chunk.id,
          title: chunk.title,
          breadcrumb: chunk.breadcrumb.join(" > "),
          content: truncate(chunk.text, maxContentChars),
          relevance_level: relevanceLevelOf(hit.score, best, thresholds)
        })
      }
      return {
        evidence,
        retrieval_trace: {
          engine: "minisearch-bm25",
          query,
          top_k: k,
          indexed_chunks: chunks.length,
          candidates: results.length,
          best_score: best,
          hits: hits.map((h) => ({ id: String(h.id), score: h.score, terms: h.terms }))
        }
      }
    })

  return { search, chunks }
}

const listMarkdown = (root: string): Effect.Effect<ReadonlyArray<string>, KnowledgeIndexError> =>
  Effect.tryPromise({
    try: async () => {
      const entries = await readdir(root, { recursive: true, withFileTypes: true })
      return entries
        .filter((e) => e.isFile() && /\.(md|markdown)$/i.test(e.name))
        .map((e) => join(e.parentPath, e.name))
        .sort()
    },
    catch: (cause) => new KnowledgeIndexError({ reason: "READ_FAILED", path: root, cause })
  })

/** Embedded knowledge search over markdown runbooks: constructors and layers. */
export const EmbeddedKnowledgeSearch = {
  /** Index runbooks given as text. */
  fromDocuments: (
    documents: ReadonlyArray<KnowledgeDocument>,
    options?: EmbeddedKnowledgeOptions
  ): KnowledgeSearchShape & { readonly chunks: ReadonlyArray<MarkdownChunk> } =>
    makeEmbeddedKnowledgeSearch(documents, options),

  /** Index every `*.md` / `*.markdown` below `dir` (recursive); sources are relative to `dir`. */
  fromDirectory: (
    dir: string,
    options?: EmbeddedKnowledgeOptions
  ): Effect.Effect<
    KnowledgeSearchShape & { readonly chunks: ReadonlyArray<MarkdownChunk> },
    KnowledgeIndexError
  > =>
    Effect.gen(function* () {
      const files = yield* listMarkdown(dir)
      if (files.length === 0) return yield* new KnowledgeIndexError({ reason: "NO_DOCUMENTS", path: dir })
      const documents = yield* Effect.forEach(files, (file) =>
        Effect.tryPromise({
          try: async () => ({
            path: normalizePath(relative(dir, file)),
            markdown: await readFile(file, "utf8")
          }),
          catch: (cause) => new KnowledgeIndexError({ reason: "READ_FAILED", path: file, cause })
        })
      )
      return makeEmbeddedKnowledgeSearch(documents, options)
    }),

  /** The search over the given documents as the `KnowledgeSearch` service. */
  layerFromDocuments: (documents: ReadonlyArray<KnowledgeDocument>, options?: EmbeddedKnowledgeOptions) =>
    Layer.succeed(KnowledgeSearch, makeEmbeddedKnowledgeSearch(documents, options)),

  /** The search over a directory's markdown files as the `KnowledgeSearch` service. */
  layerFromDirectory: (dir: string, options?: EmbeddedKnowledgeOptions) =>
    Layer.effect(KnowledgeSearch, EmbeddedKnowledgeSearch.fromDirectory(dir, options))
}

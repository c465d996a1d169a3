/** One heading-delimited section of a Markdown runbook. */
export interface MarkdownChunk {
  /** Stable id: `<path>#<anchor>` (the anchor is empty for text before the first heading). */
  readonly id: string
  /** Relative path of the document, `/`-separated. */
  readonly path: string
  /** GitHub-style anchor of the section heading, `""` for the preamble. */
  readonly anchor: string
  /** Runbook title: the first level-1 heading, else the file name without extension. */
  readonly title: string
  /** `[title, section, subsection, ...]`. */
  readonly breadcrumb: ReadonlyArray<string>
  /** The heading text of this section (`""` for the preamble). */
  readonly heading: string
  /** Section body without its heading line, trimmed. */
  readonly text: string
}

const HEADING = /^ {0,3}(#{1,6})[ \t]+(.*?)[ \t]*#*[ \t]*$/
const FENCE = /^ {0,3}(`{3,}|~{3,})/

/** Inline Markdown to plain text, for headings and breadcrumbs. */
const plainInline = (text: string): string =>
  text
    .replace(/!\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .replace(/[`*_]/g, "")
    .trim()

/** GitHub's heading anchor: lower-case, punctuation dropped, spaces to `-`. */
export const headingAnchor = (heading: string): string =>
  heading
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\s_-]/gu, "")
    .trim()
    .replace(/\s/g, "-")

const fileTitle = (path: string): string => {
  const base = path.split("/").pop() ?? path
  return base.replace(/\.(md|markdown)$/i, "")
}

/**
 * Splits a Markdown document into sections by ATX headings (ignoring `#` inside fenced code).
 * The level-1 heading that names the runbook is the breadcrumb root; sections without body
 * text are dropped; duplicate anchors get `-1`, `-2`, ... like GitHub.
 */
export const chunkMarkdown = (path: string, markdown: string): ReadonlyArray<MarkdownChunk> => {
  const lines = markdown.replace(/\r\n?/g, "\n").split("\n")
  let fence: string | null = null
  const headings: Array<{ line: number; level: number; text: string }> = []
  lines.forEach((line, index) => {
    const f = FENCE.exec(line)
    if (f?.[1]) {
      const marker = f[1]
      if (fence === null) fence = marker[0]!.repeat(marker.length)
      else if (marker[0] === fence[0] && marker.length >= fence.length) fence = null
      return
    }
    if (fence !== null) return
    const h = HEADING.exec(line)
    if (h?.[1] && h[2] !== undefined)
      headings.push({ line: index, level: h[1].length, text: plainInline(h[2]) })
  })

  const firstH1 = headings.find((h) => h.level === 1)
  const title = firstH1?.text || fileTitle(path)
  const used = new Map<string, number>()
  const uniqueAnchor = (heading: string): string => {
    const base = headingAnchor(heading)
    const n = used.get(base) ?? 0
    used.set(base, n + 1)
    return n === 0 ? base : `${base}-${n}`
  }

  const chunks: MarkdownChunk[] = []
  const stack: Array<{ level: number; text: string }> = []
  const push = (anchor: string, heading: string, from: number, to: number) => {
    const text = lines.slice(from, to).join("\n").trim()
    if (text === "") return
    const trail = stack.filter((s) => !(firstH1 && s.level === 1 && s.text === title)).map((s) => s.text)
    chunks.push({
      id: anchor === "" ? path : `${path}#${anchor}`,
      path,
      anchor,
      title,
      breadcrumb: [title, ...trail],
      heading,
      text
    })
  }

  push("", "", 0, headings[0]?.line ?? lines.length)
  headings.forEach((h, i) => {
    while (stack.length > 0 && stack[stack.length - 1]!.level >= h.level) stack.pop()
    stack.push({ level: h.level, text: h.text })
    const end = headings[i + 1]?.line ?? lines.length
    push(uniqueAnchor(h.text), h.text, h.line + 1, end)
  })
  return chunks
}

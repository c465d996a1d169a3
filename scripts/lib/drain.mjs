// A plain Drain (He et al., ICWS 2017), the reference the grouping bench compares against:
// fixed-depth parse tree (length, then the first depth-2 tokens; a token with a digit, or one
// past maxChildren, goes down the `<*>` branch), then the most similar cluster of the leaf
// (share of equal tokens, ties broken by more parameters) if similarity >= st, else a new one.
// Defaults as Drain3's (depth 4, st 0.4, max_children 100); no per-dataset regexes.

const WILD = "<*>"
const DIGIT_RE = /\d/

export function drain(lines, { depth = 4, st = 0.4, maxChildren = 100 } = {}) {
  const root = new Map()
  const clusters = []
  const ids = new Array(lines.length)
  const inner = depth - 2
  for (let i = 0; i < lines.length; i++) {
    const trimmed = lines[i].trim()
    const tokens = trimmed === "" ? [] : trimmed.split(/\s+/)
    let node = root.get(tokens.length)
    if (node === undefined) {
      node = { children: new Map(), clusters: [] }
      root.set(tokens.length, node)
    }
    for (let d = 0; d < inner && d < tokens.length; d++) {
      const token = tokens[d]
      let key = DIGIT_RE.test(token) ? WILD : token
      if (!node.children.has(key)) {
        if (key !== WILD && node.children.size >= maxChildren) key = WILD
      }
      let next = node.children.get(key)
      if (next === undefined) {
        next = { children: new Map(), clusters: [] }
        node.children.set(key, next)
      }
      node = next
    }
    let best = null
    let bestSim = -1
    let bestParams = -1
    for (const cluster of node.clusters) {
      const t = cluster.template
      let same = 0
      let params = 0
      for (let p = 0; p < t.length; p++) {
        if (t[p] === WILD) params++
        else if (t[p] === tokens[p]) same++
      }
      const sim = t.length === 0 ? 1 : same / t.length
      if (sim > bestSim || (sim === bestSim && params > bestParams)) {
        best = cluster
        bestSim = sim
        bestParams = params
      }
    }
    if (best !== null && bestSim >= st) {
      const t = best.template
      for (let p = 0; p < t.length; p++) if (t[p] !== tokens[p]) t[p] = WILD
    } else {
      best = { id: clusters.length, template: tokens.slice() }
      clusters.push(best)
      node.clusters.push(best)
    }
    ids[i] = best.id
  }
  return ids
}

/**
 * What the render step must change in the parsed tree: validation records these instead of
 * editing the AST it is still reading; render applies them in order, then prints.
 */
export type Rewrite =
  /** `node[key] = value` (canonical names, star expansion, literal spelling, LIMIT). */
  | { readonly kind: "set"; readonly node: object; readonly key: string | number; readonly value: unknown }
  /**
   * `node[key] =` a copy of `expr` taken when applied, so it carries `expr`'s own (earlier)
   * rewrites: an inlined select-list alias.
   */
  | { readonly kind: "inline"; readonly node: object; readonly key: string | number; readonly expr: unknown }

/** Rewrites in the order validation recorded them. */
export type Rewrites = Array<Rewrite>

export const setField = (rewrites: Rewrites, node: object, key: string | number, value: unknown) => {
  rewrites.push({ kind: "set", node, key, value })
}

/** Records `node[key] = walked` when validation replaced the child (an inlined alias). */
export const replaceChild = (rewrites: Rewrites, node: object, key: string | number, walked: Walked) => {
  if (walked.inlined) rewrites.push({ kind: "inline", node, key, expr: walked.node })
}

/** A validated expression: the node validation read, and whether it stands for an inlined copy. */
export interface Walked {
  readonly node: unknown
  readonly inlined: boolean
  /** A resolved column reference: the column name it renders (its canonical spelling). */
  readonly column?: string
}

/** Applies `rewrites` to the (mutable) parsed tree. */
export const applyRewrites = (rewrites: ReadonlyArray<Rewrite>) => {
  for (const r of rewrites) {
    const target = r.node as Record<string | number, unknown>
    target[r.key] = r.kind === "set" ? r.value : structuredClone(r.expr)
  }
}

/** Expressions: walks a node, checks it, records its provenance and size and the rewrites it needs. */
import { PUNCTUATION_SEPARATOR } from "../literals.js"
import {
  choiceInfo,
  type ExprInfo,
  literalInfo,
  NEUTRAL,
  PREDICATE_OPERATORS,
  scalarInfo,
  sumInfo
} from "../provenance.js"
import {
  type AstNode,
  arrayOf,
  expectNode,
  field,
  isNode,
  iterate,
  lower,
  MAX_DEPTH,
  present,
  reject,
  typeOf
} from "./ast.js"
import { resolveColumn } from "./columns.js"
import {
  checkFunctionName,
  checkLengthArgument,
  functionInfo,
  ROW_CONCATENATING_AGGREGATES
} from "./function-info.js"
import { infoOf, validated } from "./info.js"
import {
  BIG_NUMBER,
  checkLikePattern,
  checkLiteral,
  checkPattern,
  isLiteralType,
  LIKE_OPERATOR,
  REGEX_OPERATOR,
  stringLiteral
} from "./literal-check.js"
import { replaceChild, setField, type Walked } from "./rewrites.js"
import { type ExprEnv, scopeFromTable } from "./scope.js"

export const ORIGIN_KEYWORDS: ReadonlySet<string> = new Set([
  "both",
  "leading",
  "trailing",
  "from",
  "for",
  "in"
])

/** Walks `node[key]` and records its replacement; returns the validated child. */
export const walkField = (node: AstNode, key: string, env: ExprEnv): Walked => {
  const walked = walkExpr(node[key], env)
  replaceChild(env.ctx.rewrites, node, key, walked)
  return walked
}

/** Walks every item of an array in place (recording replacements); returns the validated items. */
const walkItems = (items: ReadonlyArray<unknown>, env: ExprEnv): Array<unknown> =>
  items.map((v, i) => {
    const walked = walkExpr(v, env)
    replaceChild(env.ctx.rewrites, items, i, walked)
    return walked.node
  })

export const walkWindow = (spec: unknown, env: ExprEnv) => {
  if (typeof spec === "string") return
  const ws = field(spec, "window_specification")
  if (!ws) return reject("UNSUPPORTED_SYNTAX", "unsupported window specification")
  if (field(ws, "name")) reject("UNSUPPORTED_SYNTAX", "unsupported window specification")
  const partitionby = field(ws, "partitionby")
  if (Array.isArray(partitionby)) for (const p of partitionby) walkField(expectNode(p), "expr", env)
  const orderby = field(ws, "orderby")
  if (Array.isArray(orderby)) for (const o of orderby) walkField(expectNode(o), "expr", env)
  const frame = field(ws, "window_frame_clause")
  if (frame) checkFrame(frame)
}

export const checkFrame = (n: unknown): void => {
  if (typeof n === "string") return
  if (!isNode(n)) reject("UNSUPPORTED_SYNTAX", "unsupported window frame")
  switch (n.type) {
    case "binary_expr":
      checkFrame(n.left)
      checkFrame(n.right)
      return
    case "expr_list":
      for (const v of iterate(n.value)) checkFrame(v)
      return
    case "origin":
    case "number":
      return
    default:
      reject("UNSUPPORTED_SYNTAX", "unsupported window frame")
  }
}

/** Validates an argument list (`expr_list`); returns its validated items, undefined when absent. */
export const walkList = (list: unknown, env: ExprEnv): Array<unknown> | undefined => {
  if (!list) return undefined
  const value = field(list, "value")
  if (typeOf(list) !== "expr_list" || !Array.isArray(value))
    return reject("UNSUPPORTED_SYNTAX", "unsupported argument list")
  return walkItems(value, env)
}

export const walkOver = (over: unknown, env: ExprEnv) => {
  if (typeOf(over) !== "window") reject("UNSUPPORTED_SYNTAX", "unsupported OVER clause")
  walkWindow(field(over, "as_window_specification"), env)
}

const walkFunction = (n: AstNode, env: ExprEnv): Walked => {
  const ctx = env.ctx
  const name = checkFunctionName(n, false)
  ctx.functions.push(name)
  const args = n.args ? walkList(n.args, env) : undefined
  checkLengthArgument(name, args)
  // Its search string is a LIKE pattern over every string of the document.
  if (name === "JSON_SEARCH") checkLikePattern(stringLiteral((args ?? [])[2]), "JSON_SEARCH")
  if (n.over) walkOver(n.over, env)
  if (n.suffix) reject("UNSUPPORTED_SYNTAX", "unsupported function syntax")
  return validated(ctx, n, functionInfo(name, args ?? [], env))
}

const walkAggregate = (n: AstNode, env: ExprEnv): Walked => {
  const ctx = env.ctx
  const name = checkFunctionName(n, true)
  ctx.functions.push(name)
  const args: AstNode = present(n.args) ? expectNode(n.args) : {}
  let argInfo: ExprInfo = NEUTRAL
  const expr = args.expr
  if (typeOf(expr) === "star") {
    if (name !== "COUNT") reject("STAR_NOT_ALLOWED", "star is only allowed in COUNT(*)")
  } else if (expr && !typeOf(expr) && field(expr, "expr")) {
    reject("STAR_NOT_ALLOWED", "star is only allowed in COUNT(*)")
  } else {
    argInfo = infoOf(ctx, walkField(args, "expr", env).node)
  }
  if (Array.isArray(args.orderby)) for (const o of args.orderby) walkField(expectNode(o), "expr", env)
  let separatorInfo: ExprInfo = NEUTRAL
  if (args.separator) {
    const sep = field(args.separator, "value") ?? args.separator
    if (!isLiteralType(typeOf(sep))) reject("UNSUPPORTED_SYNTAX", "unsupported separator")
    separatorInfo = checkLiteral(expectNode(sep), ctx)
    if (PUNCTUATION_SEPARATOR.test(stringLiteral(sep) ?? "x"))
      separatorInfo = { ...separatorInfo, literal: false }
  }
  if (n.over) walkOver(n.over, env)
  const rows = { ...NEUTRAL, table: scopeFromTable(env.scope) }
  // COUNT is a number of rows; other aggregates carry their argument's provenance.
  if (name === "COUNT") return validated(ctx, n, scalarInfo([rows, argInfo]))
  const aggregated = sumInfo([argInfo, separatorInfo])
  const growth = ROW_CONCATENATING_AGGREGATES[name]
  // Row-concatenating aggregates are as long as many rows: count them as (nearly) the
  // largest accepted size, so nothing may amplify them further.
  if (growth !== undefined) return validated(ctx, n, { ...aggregated, k: Math.max(aggregated.k, growth) })
  return validated(ctx, n, aggregated)
}

const walkCase = (n: AstNode, env: ExprEnv): Walked => {
  const ctx = env.ctx
  const conditions: Array<ExprInfo> = [infoOf(ctx, walkField(n, "expr", env).node)]
  const results: Array<ExprInfo> = []
  for (const item of iterate(n.args ?? [])) {
    const a = expectNode(item)
    if (a.type === "when") conditions.push(infoOf(ctx, walkField(a, "cond", env).node))
    else if (a.type !== "else") reject("UNSUPPORTED_SYNTAX", "unsupported CASE")
    results.push(infoOf(ctx, walkField(a, "result", env).node))
  }
  const chosen = choiceInfo(results)
  return validated(ctx, n, { ...chosen, table: chosen.table || conditions.some((c) => c.table) })
}

const walkBinary = (n: AstNode, env: ExprEnv): Walked => {
  const ctx = env.ctx
  const left = walkField(n, "left", env).node
  const right = walkField(n, "right", env).node
  const operator = String(n.operator ?? "").toUpperCase()
  checkPattern(operator, right)
  const l = infoOf(ctx, left)
  const r = infoOf(ctx, right)
  if (PREDICATE_OPERATORS.has(operator) || REGEX_OPERATOR.test(operator) || LIKE_OPERATOR.test(operator))
    return validated(ctx, n, scalarInfo([l, r]))
  if (operator === "->" || operator === "->>") return validated(ctx, n, { ...l, table: l.table || r.table })
  // Arithmetic: a number, but literal operands set its value.
  return validated(ctx, n, { ...sumInfo([l, r]), k: 0, c: 64 })
}

const walkNode = (n: AstNode, env: ExprEnv): Walked => {
  const ctx = env.ctx
  if (n.ast && n.type === undefined) {
    // Scalar / IN / EXISTS subquery: sees the current scope as its outer scope.
    const out = ctx.validateSubquery(n.ast, env.scope, env.ctes)
    const first = out.columns[0]?.info ?? NEUTRAL
    return validated(ctx, n, out.columns.length === 1 ? first : choiceInfo(out.columns.map((c) => c.info)))
  }
  if (isLiteralType(n.type)) return validated(ctx, n, checkLiteral(n, ctx))
  if (n.type === "bigint") {
    // node-sql-parser's node for long integers and decimals with an exponent (`1.5e3`):
    // rendered verbatim, so accept only a plain numeric spelling.
    if (typeof n.value === "string" && BIG_NUMBER.test(n.value) && n.value.length <= 80) {
      ctx.literals.push(`n:${n.value}`)
      return validated(ctx, n, literalInfo(n.value.length))
    }
    return reject("PARSE_ERROR", "number literal could not be parsed")
  }
  switch (n.type) {
    case "column_ref":
      return resolveColumn(n, env)
    case "var": {
      const system = String(n.prefix ?? "").startsWith("@@")
      return reject(
        system ? "SYSTEM_VARIABLE" : "USER_VARIABLE",
        system ? "system variables are not allowed" : "user variables are not allowed"
      )
    }
    case "assign":
      return reject("USER_VARIABLE", "variable assignment is not allowed")
    case "param":
      return reject("PARAMETER_PLACEHOLDER", "parameter placeholders are not supported; inline values")
    case "origin": {
      const v = lower(String(n.value))
      if (v === "?")
        reject("PARAMETER_PLACEHOLDER", "parameter placeholders are not supported; inline values")
      if (!ORIGIN_KEYWORDS.has(v)) reject("UNSUPPORTED_SYNTAX", "unsupported expression")
      return validated(ctx, n, NEUTRAL)
    }
    case "star":
      return reject("STAR_NOT_ALLOWED", "star is not allowed here")
    case "binary_expr":
      return walkBinary(n, env)
    case "unary_expr": {
      const inner = infoOf(ctx, walkField(n, "expr", env).node)
      const operator = String(n.operator ?? "").toUpperCase()
      return validated(ctx, n, operator === "NOT" || operator === "!" ? scalarInfo([inner]) : inner)
    }
    case "expr_list": {
      const items = walkList(n, env) ?? []
      return validated(ctx, n, sumInfo(items.map((v) => infoOf(ctx, v))))
    }
    case "function":
      return walkFunction(n, env)
    case "aggr_func":
      return walkAggregate(n, env)
    case "case":
      return walkCase(n, env)
    case "cast":
    case "interval":
      return validated(ctx, n, infoOf(ctx, walkField(n, "expr", env).node))
    case "extract": {
      if (!n.args) return reject("UNSUPPORTED_SYNTAX", "unsupported EXTRACT")
      const source = walkField(expectNode(n.args), "source", env).node
      return validated(ctx, n, scalarInfo([infoOf(ctx, source)]))
    }
    case "fulltext_search": {
      let columns: Array<unknown> = []
      if (present(n.columns)) columns = walkItems(arrayOf(n.columns), env)
      else setField(ctx.rewrites, n, "columns", [])
      const expr = walkField(n, "expr", env).node
      return validated(ctx, n, scalarInfo([...columns.map((c) => infoOf(ctx, c)), infoOf(ctx, expr)]))
    }
    default:
      return reject("UNSUPPORTED_SYNTAX", "unsupported expression")
  }
}

/** Validates an expression (null/undefined: absent, accepted). */
export const walkExpr = (n: unknown, env: ExprEnv): Walked => {
  if (n === null || n === undefined) return { node: n, inlined: false }
  if (!isNode(n)) return reject("UNSUPPORTED_SYNTAX", "unsupported expression")
  if (++env.ctx.depth > MAX_DEPTH * 4) reject("UNSUPPORTED_SYNTAX", "expression nesting is too deep")
  try {
    return walkNode(n, env)
  } finally {
    env.ctx.depth--
  }
}

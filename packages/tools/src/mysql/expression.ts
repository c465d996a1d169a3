/** Expressions: columns, literals, functions, their provenance and static output size. */
import { isSystemSchema } from "./allowlist.js"
import { identValue, lower, MAX_DEPTH, type Node, reject } from "./ast.js"
import { SAFE_AGGREGATE_FUNCTIONS, SAFE_SCALAR_FUNCTIONS } from "./functions.js"
import {
  checkRegexPattern,
  DATE_LITERAL,
  isSafeText,
  likeWildcards,
  MAX_LIKE_WILDCARDS,
  MAX_LITERAL_CHARS,
  NUMBER_TEXT,
  PUNCTUATION_SEPARATOR,
  SPECIFIER_ONLY_FORMAT
} from "./literals.js"
import {
  CHOICE_FUNCTIONS,
  choiceInfo,
  EXPANSION_FACTOR,
  type ExprInfo,
  literalInfo,
  MAX_EXPRESSION_AMPLIFICATION,
  MAX_EXPRESSION_CHARS,
  NEUTRAL,
  OUTPUT_ARGUMENTS,
  PREDICATE_OPERATORS,
  SCALAR_RESULT_FUNCTIONS,
  scalarInfo,
  scale,
  sumInfo
} from "./provenance.js"
import {
  type Ctx,
  type ExprEnv,
  findQualified,
  recordColumn,
  type Scope,
  scopeFromTable,
  sourceColumnInfo,
  sourceHasColumn
} from "./scope.js"

// ---------------------------------------------------------------------------------------------
// Expressions

export const LITERAL_TYPES: ReadonlySet<string> = new Set([
  "number",
  "single_quote_string",
  "double_quote_string",
  "natural_string",
  "hex_string",
  "full_hex_string",
  "bit_string",
  "bool",
  "boolean",
  "null",
  "date",
  "datetime",
  "time",
  "timestamp",
  "datatype"
])

export const ORIGIN_KEYWORDS: ReadonlySet<string> = new Set([
  "both",
  "leading",
  "trailing",
  "from",
  "for",
  "in"
])

/**
 * An unquoted number in exponent notation without a decimal point (`1e1`, `2E`) is read by
 * node-sql-parser as a column name: report a parse problem, not a forbidden column.
 */
export const EXPONENT_QUIRK = /^[0-9]+e[0-9]*$/i

export const qualifierCaseConflict = (env: ExprEnv, found: Scope, qualifier: string): boolean => {
  // A server with case-sensitive aliases (lower_case_table_names=0) would skip a source whose
  // spelling differs and bind an exactly spelled one further out: refuse instead of guessing.
  for (let scope: Scope | undefined = env.scope; scope; scope = scope.parent) {
    if (scope === found) continue
    if (scope.sources.some((s) => s.qualifier.table === qualifier)) return true
  }
  return false
}

/**
 * Renders a resolved column with the spelling it resolved to (the allowlist's, or the derived
 * column's), so the server never compares a different spelling (case, Unicode case folding such
 * as the Kelvin sign) than the validator did.
 */
const setColumnName = (ref: Node, canonical: string) => {
  if (typeof ref.column === "string") ref.column = canonical
  else if (ref.column?.expr && typeof ref.column.expr.value === "string") ref.column.expr.value = canonical
  else reject("UNSUPPORTED_SYNTAX", "unsupported column reference")
}

export const resolveColumn = (ref: Node, env: ExprEnv): Node => {
  const column = identValue(ref.column)
  if (column === undefined) reject("UNSUPPORTED_SYNTAX", "unsupported column reference")
  if (column === "*") reject("STAR_NOT_ALLOWED", "star is not allowed here")
  if (ref.options) reject("UNSUPPORTED_SYNTAX", "unsupported column reference")
  const qualifier = ref.table === null || ref.table === undefined ? undefined : identValue(ref.table)
  if (ref.table && qualifier === undefined) reject("UNSUPPORTED_SYNTAX", "unsupported column reference")
  const db = identValue(ref.db) ?? identValue(ref.schema)
  if (db !== undefined && isSystemSchema(db)) reject("SYSTEM_SCHEMA", "system schemas are not allowed")
  if (qualifier !== undefined) {
    for (let scope: Scope | undefined = env.scope; scope; scope = scope.parent) {
      const s = findQualified(scope.sources, qualifier, db)
      if (!s) continue
      const canonical = sourceHasColumn(s, column!)
      if (!canonical) reject("COLUMN_NOT_ALLOWED", "column is not allowed")
      if (s.qualifier.table !== qualifier && qualifierCaseConflict(env, scope, qualifier)) {
        reject("AMBIGUOUS_COLUMN", "table qualifier differs in case from its alias; spell it exactly")
      }
      if (s.kind === "table") recordColumn(env.ctx, s, canonical!)
      // Render exactly the qualifier the validator resolved, so the server binds the same source.
      ref.table = s.qualifier.table
      if (db !== undefined) {
        if (ref.db) ref.db = s.qualifier.db
        else ref.schema = s.qualifier.db
      }
      setColumnName(ref, canonical!)
      return withInfo(env.ctx, ref, sourceColumnInfo(s, canonical!))
    }
    if (isSystemSchema(qualifier)) reject("SYSTEM_SCHEMA", "system schemas are not allowed")
    return reject("COLUMN_NOT_ALLOWED", "unknown table qualifier")
  }
  const alias = env.aliases.get(lower(column!))
  const matches = env.scope.sources.filter((s) => sourceHasColumn(s, column!))
  if (matches.length > 1) reject("AMBIGUOUS_COLUMN", "unqualified column matches several tables; qualify it")
  if (matches.length === 1) {
    const s = matches[0]!
    if (s.kind === "table") recordColumn(env.ctx, s, sourceHasColumn(s, column!)!)
    const canonical = sourceHasColumn(s, column!)!
    setColumnName(ref, canonical)
    return withInfo(env.ctx, ref, sourceColumnInfo(s, canonical))
  }
  if (alias !== undefined) {
    if (env.mode === "having" || env.mode === "group-item") {
      // Inline the aliased expression: MySQL resolves GROUP BY/HAVING names against table columns
      // first, so leaving the alias could bind to a hidden column of the same name.
      return withInfo(env.ctx, structuredClone(alias.expr), infoOf(env.ctx, alias.expr))
    }
    if (env.mode === "order" || env.mode === "group") {
      // Inside an ORDER BY / GROUP BY expression the server binds the name to a table column,
      // which may be a hidden one (e.g. `ORDER BY secret LIKE 'a%'` with `'x' AS secret`).
      reject(
        "COLUMN_NOT_ALLOWED",
        "a select alias may only be a whole ORDER BY/GROUP BY item; repeat its expression instead"
      )
    }
  }
  if (EXPONENT_QUIRK.test(column!)) {
    reject("PARSE_ERROR", "exponent numbers need a decimal point (1.0e1) or must be written in full")
  }
  for (let scope = env.scope.parent; scope; scope = scope.parent) {
    if (scope.sources.some((s) => sourceHasColumn(s, column!))) {
      reject("AMBIGUOUS_COLUMN", "outer column references must be qualified")
    }
  }
  return reject("COLUMN_NOT_ALLOWED", "column is not allowed")
}

export const checkFunctionName = (fn: Node, aggregate: boolean): string => {
  if (aggregate) {
    const name = typeof fn.name === "string" ? fn.name.toUpperCase() : ""
    if (!SAFE_AGGREGATE_FUNCTIONS.has(name)) reject("FORBIDDEN_FUNCTION", "function is not allowed")
    return name
  }
  const parts = fn.name?.name
  if (fn.name?.schema || !Array.isArray(parts) || parts.length !== 1) {
    reject("FORBIDDEN_FUNCTION", "function is not allowed")
  }
  const raw = identValue(parts[0])
  if (raw === undefined) reject("FORBIDDEN_FUNCTION", "function is not allowed")
  const name = raw!.toUpperCase()
  if (!SAFE_SCALAR_FUNCTIONS.has(name) && !SAFE_AGGREGATE_FUNCTIONS.has(name)) {
    reject("FORBIDDEN_FUNCTION", "function is not allowed")
  }
  return name
}

export const walkWindow = (spec: Node, env: ExprEnv) => {
  if (typeof spec === "string") return
  const ws = spec?.window_specification
  if (!ws) reject("UNSUPPORTED_SYNTAX", "unsupported window specification")
  if (ws.name) reject("UNSUPPORTED_SYNTAX", "unsupported window specification")
  if (Array.isArray(ws.partitionby)) for (const p of ws.partitionby) p.expr = walkExpr(p.expr, env)
  if (Array.isArray(ws.orderby)) for (const o of ws.orderby) o.expr = walkExpr(o.expr, env)
  if (ws.window_frame_clause) checkFrame(ws.window_frame_clause)
}

export const checkFrame = (n: Node): void => {
  if (typeof n === "string") return
  if (!n || typeof n !== "object") reject("UNSUPPORTED_SYNTAX", "unsupported window frame")
  switch (n.type) {
    case "binary_expr":
      checkFrame(n.left)
      checkFrame(n.right)
      return
    case "expr_list":
      for (const v of n.value) checkFrame(v)
      return
    case "origin":
    case "number":
      return
    default:
      reject("UNSUPPORTED_SYNTAX", "unsupported window frame")
  }
}

export const walkList = (list: Node, env: ExprEnv) => {
  if (!list) return
  if (list.type !== "expr_list" || !Array.isArray(list.value))
    reject("UNSUPPORTED_SYNTAX", "unsupported argument list")
  list.value = list.value.map((v: Node) => walkExpr(v, env))
}

export const infoOf = (ctx: Ctx, n: Node): ExprInfo =>
  n !== null && typeof n === "object" ? (ctx.info.get(n) ?? NEUTRAL) : NEUTRAL

/** Records `info` for `n` after checking the static size bound. */
export const withInfo = (ctx: Ctx, n: Node, info: ExprInfo): Node => {
  if (
    info.k > MAX_EXPRESSION_AMPLIFICATION ||
    info.c > MAX_EXPRESSION_CHARS ||
    !Number.isFinite(info.k + info.c)
  ) {
    reject("RESOURCE_LIMIT", "expression could produce too much output (size-amplifying functions)")
  }
  if (n !== null && typeof n === "object") ctx.info.set(n, info)
  return n
}

export const LITERAL_KEYS: ReadonlySet<string> = new Set(["type", "value", "prefix", "loc", "parentheses"])

/**
 * A literal the plan may render: plain single-quoted text of safe characters (see literals.ts),
 * numbers, booleans, NULL, date literals. Charset introducers, `N'…'`, `X'…'`, `0x…`, `b'…'`,
 * `ESCAPE` clauses and any quote, backslash or control character are `UNSAFE_LITERAL`.
 */
export const checkLiteral = (n: Node, ctx: Ctx): ExprInfo => {
  if (n.type === "datatype") {
    // CONVERT(x, CHAR): a type name, not a value.
    if (typeof n.dataType !== "string" || !/^[A-Za-z0-9_ ]{1,32}$/.test(n.dataType))
      reject("UNSUPPORTED_SYNTAX", "unsupported data type")
    return NEUTRAL
  }
  for (const k of Object.keys(n)) {
    if (!LITERAL_KEYS.has(k) && n[k] !== null && n[k] !== undefined)
      reject("UNSAFE_LITERAL", "literal with unsupported decoration (ESCAPE, COLLATE, ...)")
  }
  if (n.prefix !== null && n.prefix !== undefined)
    reject("UNSAFE_LITERAL", "charset introducers are not allowed")
  switch (n.type) {
    case "single_quote_string":
    case "double_quote_string": {
      const v = n.value
      if (typeof v !== "string" || !isSafeText(v))
        reject("UNSAFE_LITERAL", "string literals may not contain quotes, backslashes or control characters")
      if (v.length > MAX_LITERAL_CHARS) reject("UNSAFE_LITERAL", "string literal is too long")
      // Always rendered with single quotes, which every sql_mode reads as a string.
      n.type = "single_quote_string"
      ctx.literals.push(`s:${v}`)
      return literalInfo(v.length)
    }
    case "number": {
      const v = n.value
      const ok =
        (typeof v === "number" && Number.isFinite(v)) || (typeof v === "string" && NUMBER_TEXT.test(v))
      if (!ok) reject("PARSE_ERROR", "number literal could not be parsed")
      ctx.literals.push(`n:${String(v)}`)
      return literalInfo(String(v).length)
    }
    case "bool":
    case "boolean":
      if (typeof n.value !== "boolean") reject("UNSAFE_LITERAL", "unsupported literal")
      ctx.literals.push(`b:${String(n.value)}`)
      return literalInfo(1)
    case "null":
      ctx.literals.push("null")
      return literalInfo(4)
    case "date":
    case "datetime":
    case "time":
    case "timestamp":
      if (typeof n.value !== "string" || !DATE_LITERAL.test(n.value) || n.value.length > 32)
        reject("UNSAFE_LITERAL", "unsupported date literal")
      ctx.literals.push(`${n.type}:${n.value}`)
      return literalInfo(n.value.length)
    default:
      return reject("UNSAFE_LITERAL", "hex, bit, national and other special literals are not allowed")
  }
}

/** A plain single-quoted string literal's text (after {@link checkLiteral}), else undefined. */
export const stringLiteral = (n: Node): string | undefined =>
  n?.type === "single_quote_string" && typeof n.value === "string" ? n.value : undefined

/** Every spelling of a regular-expression match (`REGEXP BINARY`, `NOT RLIKE`, ...). */
export const REGEX_OPERATOR = /\b(?:REGEXP|RLIKE)\b/
export const LIKE_OPERATOR = /\bLIKE\b/

/** Pattern operators: the pattern must be a literal the server matches in bounded time. */
export const checkPattern = (operator: string, right: Node) => {
  if (REGEX_OPERATOR.test(operator)) {
    const pattern = stringLiteral(right)
    if (pattern === undefined) reject("RESOURCE_LIMIT", "REGEXP pattern must be a plain string literal")
    const problem = checkRegexPattern(pattern!)
    if (problem !== undefined) reject("RESOURCE_LIMIT", problem)
  } else if (LIKE_OPERATOR.test(operator)) {
    const pattern = stringLiteral(right)
    if (pattern === undefined) reject("RESOURCE_LIMIT", "LIKE pattern must be a plain string literal")
    if (likeWildcards(pattern!) > MAX_LIKE_WILDCARDS)
      reject("RESOURCE_LIMIT", "LIKE pattern has too many % wildcards")
  }
}

export const argList = (n: Node): Array<Node> => (Array.isArray(n?.args?.value) ? n.args.value : [])

/** Provenance and size of a validated scalar function call. */
export const functionInfo = (name: string, n: Node, env: ExprEnv): ExprInfo => {
  const args = argList(n)
  const infos = args.map((a) => infoOf(env.ctx, a))
  if (args.length === 0) {
    // ROW_NUMBER() / RANK() count table rows; NOW(), PI() are not table data.
    return SCALAR_RESULT_FUNCTIONS.has(name)
      ? scalarInfo([{ ...NEUTRAL, table: scopeFromTable(env.scope) }])
      : scalarInfo([])
  }
  if (SCALAR_RESULT_FUNCTIONS.has(name)) return scalarInfo(infos)
  const growth = ROW_CONCATENATING_AGGREGATES[name]
  if (growth !== undefined) {
    // JSON_ARRAYAGG / JSON_OBJECTAGG parse as plain functions.
    const aggregated = sumInfo(infos)
    return { ...aggregated, k: Math.max(aggregated.k, growth) }
  }
  switch (name) {
    case "LPAD":
    case "RPAD": {
      // Output is exactly the length argument (checked to be a literal <= MAX_GENERATED_LENGTH).
      const length = Number(args[1]?.value)
      const base = sumInfo(infos.filter((_, i) => i !== 1))
      return { ...base, k: 0, c: length }
    }
    case "REPLACE": {
      const [subject = NEUTRAL, , to = NEUTRAL] = infos
      const from = stringLiteral(args[1])
      if (from === "") return subject
      const fromLength = from === undefined ? 1 : from.length
      if (to.k > 0 && subject.k > 0)
        reject("RESOURCE_LIMIT", "REPLACE of column data by column data could produce too much output")
      const factor = Math.max(1, to.c / fromLength)
      const prov = sumInfo([subject, to])
      return {
        table: prov.table,
        literal: prov.literal,
        k: subject.k * factor + (subject.c / fromLength) * to.k,
        c: subject.c * factor
      }
    }
    case "CONCAT_WS": {
      const [sep = NEUTRAL, ...rest] = infos
      return sumInfo([...rest, scale(sep, Math.max(0, rest.length - 1))])
    }
    case "DATE_FORMAT":
    case "TIME_FORMAT":
    case "FROM_UNIXTIME": {
      const format = stringLiteral(args[1])
      const value = infos[0] ?? NEUTRAL
      const fmt = infos[1]
      if (fmt === undefined) return scalarInfo([value])
      const wordless = format !== undefined && SPECIFIER_ONLY_FORMAT.test(format)
      return {
        table: value.table || fmt.table,
        literal: value.literal || (!wordless && fmt.literal),
        k: fmt.k * 12,
        c: fmt.c * 12 + 64
      }
    }
  }
  const outputIndexes = OUTPUT_ARGUMENTS[name]
  const outputs = outputIndexes ? infos.filter((_, i) => outputIndexes.includes(i)) : infos
  const others = infos.filter((x) => !outputs.includes(x))
  const combined = CHOICE_FUNCTIONS.has(name) ? choiceInfo(outputs) : sumInfo(outputs)
  const factor = EXPANSION_FACTOR[name] ?? 1
  return {
    table: combined.table || others.some((x) => x.table),
    literal: combined.literal,
    k: combined.k * factor,
    c: combined.c * factor + 64
  }
}

/**
 * Size factor given to aggregates that concatenate rows. GROUP_CONCAT is capped per session
 * (`group_concat_max_len`, pinned by the executor) and may still be doubled; JSON_ARRAYAGG /
 * JSON_OBJECTAGG are not capped on MySQL, so nothing may grow them.
 */
export const ROW_CONCATENATING_AGGREGATES: Readonly<Record<string, number>> = {
  GROUP_CONCAT: MAX_EXPRESSION_AMPLIFICATION / 2,
  JSON_ARRAYAGG: MAX_EXPRESSION_AMPLIFICATION,
  JSON_OBJECTAGG: MAX_EXPRESSION_AMPLIFICATION
}

export const walkExpr = (n: Node, env: ExprEnv): Node => {
  if (n === null || n === undefined) return n
  if (typeof n !== "object") reject("UNSUPPORTED_SYNTAX", "unsupported expression")
  if (++env.ctx.depth > MAX_DEPTH * 4) reject("UNSUPPORTED_SYNTAX", "expression nesting is too deep")
  const ctx = env.ctx
  const info = (node: Node, i: ExprInfo) => withInfo(ctx, node, i)
  try {
    if (n.ast && n.type === undefined) {
      // Scalar / IN / EXISTS subquery: sees the current scope as its outer scope.
      const out = env.ctx.validateSubquery(n.ast, env.scope, env.ctes)
      const first = out.columns[0]?.info ?? NEUTRAL
      return info(n, out.columns.length === 1 ? first : choiceInfo(out.columns.map((c) => c.info)))
    }
    if (LITERAL_TYPES.has(n.type)) return info(n, checkLiteral(n, ctx))
    if (n.type === "bigint") {
      // node-sql-parser's node for long integers and decimals with an exponent (`1.5e3`):
      // rendered verbatim, so accept only a plain numeric spelling.
      if (typeof n.value === "string" && BIG_NUMBER.test(n.value) && n.value.length <= 80) {
        ctx.literals.push(`n:${n.value}`)
        return info(n, literalInfo(n.value.length))
      }
      return reject("PARSE_ERROR", "number literal could not be parsed")
    }
    switch (n.type) {
      case "column_ref":
        return resolveColumn(n, env)
      case "var":
        return reject(
          String(n.prefix ?? "").startsWith("@@") ? "SYSTEM_VARIABLE" : "USER_VARIABLE",
          String(n.prefix ?? "").startsWith("@@")
            ? "system variables are not allowed"
            : "user variables are not allowed"
        )
      case "assign":
        return reject("USER_VARIABLE", "variable assignment is not allowed")
      case "param":
        return reject("PARAMETER_PLACEHOLDER", "parameter placeholders are not supported; inline values")
      case "origin": {
        const v = lower(String(n.value))
        if (v === "?")
          reject("PARAMETER_PLACEHOLDER", "parameter placeholders are not supported; inline values")
        if (!ORIGIN_KEYWORDS.has(v)) reject("UNSUPPORTED_SYNTAX", "unsupported expression")
        return info(n, NEUTRAL)
      }
      case "star":
        return reject("STAR_NOT_ALLOWED", "star is not allowed here")
      case "binary_expr": {
        n.left = walkExpr(n.left, env)
        n.right = walkExpr(n.right, env)
        const operator = String(n.operator ?? "").toUpperCase()
        checkPattern(operator, n.right)
        const l = infoOf(ctx, n.left)
        const r = infoOf(ctx, n.right)
        if (
          PREDICATE_OPERATORS.has(operator) ||
          REGEX_OPERATOR.test(operator) ||
          LIKE_OPERATOR.test(operator)
        )
          return info(n, scalarInfo([l, r]))
        if (operator === "->" || operator === "->>") return info(n, { ...l, table: l.table || r.table })
        // Arithmetic: a number, but literal operands set its value.
        return info(n, { ...sumInfo([l, r]), k: 0, c: 64 })
      }
      case "unary_expr": {
        n.expr = walkExpr(n.expr, env)
        const inner = infoOf(ctx, n.expr)
        const operator = String(n.operator ?? "").toUpperCase()
        return info(n, operator === "NOT" || operator === "!" ? scalarInfo([inner]) : inner)
      }
      case "expr_list":
        walkList(n, env)
        return info(n, sumInfo(n.value.map((v: Node) => infoOf(ctx, v))))
      case "function": {
        const name = checkFunctionName(n, false)
        ctx.functions.push(name)
        if (n.args) walkList(n.args, env)
        checkLengthArgument(name, n.args)
        if (name === "JSON_SEARCH") {
          // Its search string is a LIKE pattern over every string of the document.
          const pattern = stringLiteral(argList(n)[2])
          if (pattern === undefined)
            reject("RESOURCE_LIMIT", "JSON_SEARCH pattern must be a plain string literal")
          if (likeWildcards(pattern!) > MAX_LIKE_WILDCARDS)
            reject("RESOURCE_LIMIT", "JSON_SEARCH pattern has too many % wildcards")
        }
        if (n.over) walkOver(n.over, env)
        if (n.suffix) reject("UNSUPPORTED_SYNTAX", "unsupported function syntax")
        return info(n, functionInfo(name, n, env))
      }
      case "aggr_func": {
        const name = checkFunctionName(n, true)
        ctx.functions.push(name)
        const args = n.args ?? {}
        let argInfo: ExprInfo = NEUTRAL
        if (args.expr?.type === "star") {
          if (name !== "COUNT") reject("STAR_NOT_ALLOWED", "star is only allowed in COUNT(*)")
        } else if (args.expr && !args.expr.type && args.expr.expr) {
          reject("STAR_NOT_ALLOWED", "star is only allowed in COUNT(*)")
        } else {
          args.expr = walkExpr(args.expr, env)
          argInfo = infoOf(ctx, args.expr)
        }
        if (Array.isArray(args.orderby)) for (const o of args.orderby) o.expr = walkExpr(o.expr, env)
        let separatorInfo: ExprInfo = NEUTRAL
        if (args.separator) {
          const sep = args.separator.value ?? args.separator
          if (!LITERAL_TYPES.has(sep?.type)) reject("UNSUPPORTED_SYNTAX", "unsupported separator")
          separatorInfo = checkLiteral(sep, ctx)
          if (PUNCTUATION_SEPARATOR.test(stringLiteral(sep) ?? "x"))
            separatorInfo = { ...separatorInfo, literal: false }
        }
        if (n.over) walkOver(n.over, env)
        const rows = { ...NEUTRAL, table: scopeFromTable(env.scope) }
        // COUNT is a number of rows; other aggregates carry their argument's provenance.
        if (name === "COUNT") return info(n, scalarInfo([rows, argInfo]))
        const aggregated = sumInfo([argInfo, separatorInfo])
        const growth = ROW_CONCATENATING_AGGREGATES[name]
        // Row-concatenating aggregates are as long as many rows: count them as (nearly) the
        // largest accepted size, so nothing may amplify them further.
        if (growth !== undefined) return info(n, { ...aggregated, k: Math.max(aggregated.k, growth) })
        return info(n, aggregated)
      }
      case "case": {
        n.expr = walkExpr(n.expr, env)
        const conditions: Array<ExprInfo> = [infoOf(ctx, n.expr)]
        const results: Array<ExprInfo> = []
        for (const a of n.args ?? []) {
          if (a.type === "when") {
            a.cond = walkExpr(a.cond, env)
            conditions.push(infoOf(ctx, a.cond))
          } else if (a.type !== "else") reject("UNSUPPORTED_SYNTAX", "unsupported CASE")
          a.result = walkExpr(a.result, env)
          results.push(infoOf(ctx, a.result))
        }
        const chosen = choiceInfo(results)
        return info(n, { ...chosen, table: chosen.table || conditions.some((c) => c.table) })
      }
      case "cast":
        n.expr = walkExpr(n.expr, env)
        return info(n, infoOf(ctx, n.expr))
      case "interval":
        n.expr = walkExpr(n.expr, env)
        return info(n, infoOf(ctx, n.expr))
      case "extract":
        if (!n.args) reject("UNSUPPORTED_SYNTAX", "unsupported EXTRACT")
        n.args.source = walkExpr(n.args.source, env)
        return info(n, scalarInfo([infoOf(ctx, n.args.source)]))
      case "fulltext_search":
        n.columns = (n.columns ?? []).map((c: Node) => walkExpr(c, env))
        n.expr = walkExpr(n.expr, env)
        return info(n, scalarInfo([...n.columns.map((c: Node) => infoOf(ctx, c)), infoOf(ctx, n.expr)]))
      default:
        return reject("UNSUPPORTED_SYNTAX", "unsupported expression")
    }
  } finally {
    env.ctx.depth--
  }
}

export const BIG_NUMBER = /^[0-9]+(?:\.[0-9]*)?(?:e[+-]?[0-9]+)?$/i

/** Largest length a padding/repeating function may produce (resource abuse guard). */
export const MAX_GENERATED_LENGTH = 1000

/** Functions whose output size is set by an argument: argument index of that length. */
export const LENGTH_ARGUMENT: Readonly<Record<string, number>> = { LPAD: 1, RPAD: 1, REPEAT: 1, SPACE: 0 }

export const checkLengthArgument = (name: string, args: Node) => {
  const index = LENGTH_ARGUMENT[name]
  if (index === undefined) return
  const arg = Array.isArray(args?.value) ? args.value[index] : undefined
  const value = arg?.type === "number" ? Number(arg.value) : Number.NaN
  if (!(Number.isFinite(value) && value >= 0 && value <= MAX_GENERATED_LENGTH)) {
    reject("RESOURCE_LIMIT", `length argument must be a number literal between 0 and ${MAX_GENERATED_LENGTH}`)
  }
}

export const walkOver = (over: Node, env: ExprEnv) => {
  if (over.type !== "window") reject("UNSUPPORTED_SYNTAX", "unsupported OVER clause")
  walkWindow(over.as_window_specification, env)
}

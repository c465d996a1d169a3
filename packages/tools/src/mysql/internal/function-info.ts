/** Function calls: the allowlisted names, length arguments, and the provenance/size of a call. */
import { SAFE_AGGREGATE_FUNCTIONS, SAFE_SCALAR_FUNCTIONS } from "../functions.js"
import { SPECIFIER_ONLY_FORMAT } from "../literals.js"
import {
  CHOICE_FUNCTIONS,
  choiceInfo,
  EXPANSION_FACTOR,
  type ExprInfo,
  MAX_EXPRESSION_AMPLIFICATION,
  NEUTRAL,
  OUTPUT_ARGUMENTS,
  SCALAR_RESULT_FUNCTIONS,
  scalarInfo,
  scale,
  sumInfo
} from "../provenance.js"
import { type AstNode, field, identValue, reject } from "./ast.js"
import { infoOf } from "./info.js"
import { stringLiteral } from "./literal-check.js"
import { type ExprEnv, scopeFromTable } from "./scope.js"

export const checkFunctionName = (fn: AstNode, aggregate: boolean): string => {
  if (aggregate) {
    const name = typeof fn.name === "string" ? fn.name.toUpperCase() : ""
    if (!SAFE_AGGREGATE_FUNCTIONS.has(name)) reject("FORBIDDEN_FUNCTION", "function is not allowed")
    return name
  }
  const parts = field(fn.name, "name")
  if (field(fn.name, "schema") || !Array.isArray(parts) || parts.length !== 1) {
    return reject("FORBIDDEN_FUNCTION", "function is not allowed")
  }
  const raw = identValue(parts[0])
  if (raw === undefined) return reject("FORBIDDEN_FUNCTION", "function is not allowed")
  const name = raw.toUpperCase()
  if (!SAFE_SCALAR_FUNCTIONS.has(name) && !SAFE_AGGREGATE_FUNCTIONS.has(name)) {
    reject("FORBIDDEN_FUNCTION", "function is not allowed")
  }
  return name
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

/** Largest length a padding/repeating function may produce (resource abuse guard). */
export const MAX_GENERATED_LENGTH = 1000

/** Functions whose output size is set by an argument: argument index of that length. */
export const LENGTH_ARGUMENT: Readonly<Record<string, number>> = { LPAD: 1, RPAD: 1, REPEAT: 1, SPACE: 0 }

/** `args`: the validated argument list, undefined when the call has none. */
export const checkLengthArgument = (name: string, args: ReadonlyArray<unknown> | undefined) => {
  const index = LENGTH_ARGUMENT[name]
  if (index === undefined) return
  const arg = args?.[index]
  const value = field(arg, "type") === "number" ? Number(field(arg, "value")) : Number.NaN
  if (!(Number.isFinite(value) && value >= 0 && value <= MAX_GENERATED_LENGTH)) {
    reject("RESOURCE_LIMIT", `length argument must be a number literal between 0 and ${MAX_GENERATED_LENGTH}`)
  }
}

/** Provenance and size of a validated scalar function call over its validated arguments. */
export const functionInfo = (name: string, args: ReadonlyArray<unknown>, env: ExprEnv): ExprInfo => {
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
      const length = Number(field(args[1], "value"))
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

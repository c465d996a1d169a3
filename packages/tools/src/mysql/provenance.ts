/**
 * What the validator knows about each validated expression:
 * - provenance: does its value come from table data, and can a model-written literal reach it?
 * - size: a static upper bound of its output length, `k * C + c` where `C` is the longest stored
 *   value of any column read (unknown, but data the server already holds) and `c` characters come
 *   from literals. Size-amplifying compositions (`REPLACE(x, 'a', LPAD('', 1000, 'b'))`) grow `k`
 *   or `c` multiplicatively and are refused before the server spends time on them.
 */
export interface ExprInfo {
  /** Reads table data (a column of an allowlisted table, or counts its rows). */
  readonly table: boolean
  /** A literal written in the statement can appear in (or set) the value. */
  readonly literal: boolean
  readonly k: number
  readonly c: number
}

/**
 * Where a result column comes from: `table` (table data, possibly through functions, with no
 * literal reaching the value), `mixed` (table data combined with literals, e.g.
 * `CONCAT(status, ' text')`, `IF(x, 'a', 'b')`), `literal` (no table data: `'text' AS finding`,
 * `NOW()`). Only `table` cells are evidence.
 */
export type MysqlColumnOrigin = "table" | "mixed" | "literal"

export const originOf = (info: ExprInfo): MysqlColumnOrigin =>
  !info.table ? "literal" : info.literal ? "mixed" : "table"

/** Largest accepted factor `k` of the size estimate. */
export const MAX_EXPRESSION_AMPLIFICATION = 32
/** Largest accepted literal part `c` of the size estimate (characters). */
export const MAX_EXPRESSION_CHARS = 4096

export const NEUTRAL: ExprInfo = { table: false, literal: false, k: 0, c: 0 }
export const TABLE_COLUMN: ExprInfo = { table: true, literal: false, k: 1, c: 0 }
/** A number or boolean computed from its inputs (its text never carries a literal). */
const SCALAR = 64

export const literalInfo = (chars: number): ExprInfo => ({ table: false, literal: true, k: 0, c: chars })

/** Sum (concatenation-like), union of provenance. */
export const sumInfo = (parts: ReadonlyArray<ExprInfo>, extra = 0): ExprInfo => ({
  table: parts.some((p) => p.table),
  literal: parts.some((p) => p.literal),
  k: parts.reduce((a, p) => a + p.k, 0),
  c: parts.reduce((a, p) => a + p.c, 0) + extra
})

/** One of the parts (CASE, IF, COALESCE, set operations): max size, union of provenance. */
export const choiceInfo = (parts: ReadonlyArray<ExprInfo>): ExprInfo => ({
  table: parts.some((p) => p.table),
  literal: parts.some((p) => p.literal),
  k: Math.max(0, ...parts.map((p) => p.k)),
  c: Math.max(0, ...parts.map((p) => p.c))
})

/** A value that depends on its inputs but carries none of their text (numbers, booleans). */
export const scalarInfo = (inputs: ReadonlyArray<ExprInfo>): ExprInfo => ({
  table: inputs.some((p) => p.table),
  literal: false,
  k: 0,
  c: SCALAR
})

export const scale = (info: ExprInfo, factor: number): ExprInfo => ({
  ...info,
  k: info.k * factor,
  c: info.c * factor
})

/** Binary operators whose result is a boolean (0/1/NULL): their operands' text never reaches it. */
export const PREDICATE_OPERATORS: ReadonlySet<string> = new Set([
  "=",
  "<>",
  "!=",
  "<",
  ">",
  "<=",
  ">=",
  "<=>",
  "LIKE",
  "NOT LIKE",
  "IN",
  "NOT IN",
  "BETWEEN",
  "NOT BETWEEN",
  "IS",
  "IS NOT",
  "REGEXP",
  "NOT REGEXP",
  "RLIKE",
  "NOT RLIKE",
  "AND",
  "OR",
  "XOR",
  "&&",
  "||",
  "EXISTS",
  "NOT EXISTS",
  "MEMBER OF"
])

/**
 * Scalar functions whose result is a number/boolean/date computed from the arguments, never their
 * text: the arguments set provenance `table`, never `literal`.
 */
export const SCALAR_RESULT_FUNCTIONS: ReadonlySet<string> = new Set([
  "EXISTS",
  "ISNULL",
  "LENGTH",
  "CHAR_LENGTH",
  "CHARACTER_LENGTH",
  "BIT_LENGTH",
  "LOCATE",
  "INSTR",
  "POSITION",
  "STRCMP",
  "FIELD",
  "FIND_IN_SET",
  "ASCII",
  "ORD",
  "SIGN",
  "YEAR",
  "MONTH",
  "DAY",
  "DAYOFMONTH",
  "DAYOFWEEK",
  "DAYOFYEAR",
  "HOUR",
  "MINUTE",
  "SECOND",
  "MICROSECOND",
  "WEEK",
  "WEEKDAY",
  "WEEKOFYEAR",
  "YEARWEEK",
  "QUARTER",
  "MONTHNAME",
  "DAYNAME",
  "DATEDIFF",
  "TIMESTAMPDIFF",
  "TO_DAYS",
  "TO_SECONDS",
  "TIME_TO_SEC",
  "UNIX_TIMESTAMP",
  "PERIOD_DIFF",
  "JSON_LENGTH",
  "JSON_CONTAINS",
  "JSON_CONTAINS_PATH",
  "JSON_VALID",
  "JSON_DEPTH",
  "JSON_TYPE",
  "ROW_NUMBER",
  "RANK",
  "DENSE_RANK",
  "PERCENT_RANK",
  "CUME_DIST",
  "NTILE"
])

/**
 * For functions where only some arguments can reach the result text: their indexes. Others
 * (e.g. SUBSTR positions, ROUND digits, a JSON path, a STR_TO_DATE format) only select or shape.
 * Functions not listed here and not in {@link SCALAR_RESULT_FUNCTIONS} pass every argument through.
 */
export const OUTPUT_ARGUMENTS: Readonly<Record<string, ReadonlyArray<number>>> = {
  IF: [1, 2],
  NULLIF: [0],
  ELT: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20],
  SUBSTRING: [0],
  SUBSTR: [0],
  MID: [0],
  SUBSTRING_INDEX: [0],
  LEFT: [0],
  RIGHT: [0],
  ROUND: [0],
  TRUNCATE: [0],
  FORMAT: [0],
  JSON_EXTRACT: [0],
  JSON_VALUE: [0],
  JSON_KEYS: [0],
  JSON_SEARCH: [0],
  STR_TO_DATE: [0],
  CONVERT_TZ: [0],
  LAG: [0, 2],
  LEAD: [0, 2],
  NTH_VALUE: [0],
  FIRST_VALUE: [0],
  LAST_VALUE: [0]
}

/** Functions whose result is one of their output arguments (size: max, not sum). */
export const CHOICE_FUNCTIONS: ReadonlySet<string> = new Set([
  "IF",
  "IFNULL",
  "NULLIF",
  "COALESCE",
  "GREATEST",
  "LEAST",
  "ELT",
  "LAG",
  "LEAD",
  "FIRST_VALUE",
  "LAST_VALUE",
  "NTH_VALUE"
])

/** Output-length factor of functions that expand their input (HEX doubles it, JSON_QUOTE escapes). */
export const EXPANSION_FACTOR: Readonly<Record<string, number>> = {
  HEX: 2,
  JSON_QUOTE: 6,
  JSON_OBJECT: 2,
  JSON_ARRAY: 2,
  FORMAT: 2,
  CONV: 2,
  DATE_FORMAT: 12,
  TIME_FORMAT: 12,
  FROM_UNIXTIME: 12
}

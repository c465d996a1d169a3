import { Effect } from "effect"
import { z } from "zod"
import { InvalidAllowlist } from "./errors.js"

const identifier = z
  .string()
  .min(1)
  .max(64)
  .refine((s) => !s.includes("`") && !s.includes("\u0000"), "identifier must not contain backticks or NUL")

export const MysqlAllowlistTableSchema = z
  .object({
    /** Columns that may be read. */
    columns: z.array(identifier).min(1),
    /**
     * Optional: columns known to exist but not allowed. When non-empty, `SELECT *` / `t.*` over the
     * table is rejected (STAR_NOT_ALLOWED). Otherwise a star is expanded to `columns`.
     */
    excludedColumns: z.array(identifier).optional()
  })
  .strict()

export const MysqlAllowlistSchemaEntry = z
  .object({ tables: z.record(identifier, MysqlAllowlistTableSchema) })
  .strict()

export const MysqlAllowlistDatasourceSchema = z
  .object({
    defaultSchema: identifier,
    schemas: z.record(identifier, MysqlAllowlistSchemaEntry)
  })
  .strict()
  .refine((d) => Object.hasOwn(d.schemas, d.defaultSchema), {
    message: "defaultSchema must be one of schemas",
    path: ["defaultSchema"]
  })

/** Wire shape (plain JSON) of the MySQL read allowlist. */
export const MysqlAllowlistSchema = z
  .object({ datasources: z.record(identifier, MysqlAllowlistDatasourceSchema) })
  .strict()

/** The tables and columns `query_mysql` may read, per datasource and schema. */
export type MysqlAllowlist = z.infer<typeof MysqlAllowlistSchema>
/** The readable (and excluded) columns of one allowlisted table. */
export type MysqlAllowlistTable = z.infer<typeof MysqlAllowlistTableSchema>

const SYSTEM_SCHEMAS = new Set(["information_schema", "mysql", "performance_schema", "sys"])

/** True for MySQL/MariaDB system schemas (never readable through this tool). */
export const isSystemSchema = (name: string): boolean => SYSTEM_SCHEMAS.has(name.toLowerCase())

/** Validates plain JSON into a {@link MysqlAllowlist}; system schemas may not be allowlisted. */
export const parseMysqlAllowlist = (json: unknown): Effect.Effect<MysqlAllowlist, InvalidAllowlist> =>
  Effect.suspend(() => {
    const parsed = MysqlAllowlistSchema.safeParse(json)
    if (!parsed.success) {
      return Effect.fail(
        new InvalidAllowlist({
          detail: "allowlist does not match the expected shape",
          issues: parsed.error.issues.map((i) => ({ path: i.path.join("."), message: i.message }))
        })
      )
    }
    for (const [ds, def] of Object.entries(parsed.data.datasources)) {
      for (const schema of Object.keys(def.schemas)) {
        if (isSystemSchema(schema)) {
          return Effect.fail(
            new InvalidAllowlist({
              detail: "system schemas cannot be allowlisted",
              issues: [{ path: `datasources.${ds}.schemas.${schema}`, message: "system schema" }]
            })
          )
        }
      }
    }
    return Effect.succeed(parsed.data)
  })

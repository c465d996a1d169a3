import { z } from "zod"

/** A JSON Schema object as sent to a model or an MCP client. */
export type JsonSchema = { readonly [key: string]: unknown }

/**
 * The JSON Schema of a tool request as a model writes it (`io: "input"`: fields with a default are
 * optional), generated from the zod schema, never written by hand. Types JSON Schema cannot
 * express become `{}` (any) rather than failing the tool listing. `$schema` is dropped: model and
 * MCP tool declarations carry a bare schema.
 */
export const requestJsonSchema = (schema: z.ZodType): JsonSchema => {
  const { $schema: _ignored, ...rest } = z.toJSONSchema(schema, {
    io: "input",
    unrepresentable: "any"
  }) as Record<string, unknown>
  return rest
}

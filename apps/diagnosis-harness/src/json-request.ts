import type { Context } from "hono"
import type { ApiError } from "./http.js"

const isJsonContentType = (header: string | undefined): boolean =>
  header !== undefined && header.split(";")[0]!.trim().toLowerCase() === "application/json"

/**
 * The request rules every run endpoint shares (`/api/chat`, `/api/ag-ui`, `/api/ai-sdk/chat`):
 * `application/json` (415 `UNSUPPORTED_MEDIA_TYPE`), no new run during a shutdown (503
 * `SHUTTING_DOWN`, connection closed), a body that is JSON (400 `INVALID_REQUEST`). The parsed
 * body, or the answer to send instead.
 */
export const readJsonRequest = async (
  c: Context,
  runs: { readonly closing: boolean }
): Promise<{ readonly body: unknown } | Response> => {
  if (!isJsonContentType(c.req.header("content-type"))) {
    return c.json<ApiError>({ error: "UNSUPPORTED_MEDIA_TYPE", message: "send application/json" }, 415)
  }
  if (runs.closing) {
    c.header("connection", "close")
    return c.json<ApiError>({ error: "SHUTTING_DOWN", message: "the server is shutting down" }, 503)
  }
  try {
    return { body: await c.req.json() }
  } catch {
    return c.json<ApiError>({ error: "INVALID_REQUEST", message: "body is not valid JSON" }, 400)
  }
}

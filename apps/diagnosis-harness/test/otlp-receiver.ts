import { createServer, type Server } from "node:http"
import type { AddressInfo } from "node:net"

/** One OTLP/HTTP export request as the loopback receiver got it. */
export interface OtlpRequest {
  readonly path: string
  readonly contentType: string
  readonly body: Buffer
}

/** A span of an OTLP/JSON export, attributes flattened to plain values. */
export interface ReceivedSpan {
  readonly traceId: string
  readonly spanId: string
  readonly parentSpanId: string | undefined
  readonly name: string
  readonly kind: number
  readonly attributes: Record<string, unknown>
  readonly events: ReadonlyArray<{ readonly name: string; readonly attributes: Record<string, unknown> }>
  readonly status: { readonly code: number; readonly message?: string }
}

export interface OtlpReceiver {
  readonly url: string
  readonly requests: OtlpRequest[]
  /** Every span of the JSON requests, with its resource's attributes. */
  readonly spans: () => Array<ReceivedSpan & { readonly resource: Record<string, unknown> }>
  readonly close: () => Promise<void>
}

type AnyValue = {
  stringValue?: string
  intValue?: string | number
  boolValue?: boolean
  doubleValue?: number
  arrayValue?: { values?: AnyValue[] }
}

const plain = (value: AnyValue | undefined): unknown => {
  if (value === undefined) return undefined
  if (value.stringValue !== undefined) return value.stringValue
  if (value.intValue !== undefined) return Number(value.intValue)
  if (value.boolValue !== undefined) return value.boolValue
  if (value.doubleValue !== undefined) return value.doubleValue
  if (value.arrayValue !== undefined) return (value.arrayValue.values ?? []).map(plain)
  return value
}

const flatten = (attributes: ReadonlyArray<{ key: string; value: AnyValue }> | undefined) =>
  Object.fromEntries((attributes ?? []).map((a) => [a.key, plain(a.value)]))

/** A loopback OTLP/HTTP collector (127.0.0.1, any free port) that records every request and answers 200. */
export const startOtlpReceiver = async (): Promise<OtlpReceiver> => {
  const requests: OtlpRequest[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on("data", (c: Buffer) => chunks.push(c))
    req.on("end", () => {
      requests.push({
        path: req.url ?? "",
        contentType: String(req.headers["content-type"] ?? ""),
        body: Buffer.concat(chunks)
      })
      res.writeHead(200, { "content-type": "application/json" })
      res.end("{}")
    })
  })
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    spans: () =>
      requests
        .filter((r) => r.contentType.includes("json"))
        .flatMap((r) => {
          const data = JSON.parse(r.body.toString("utf8")) as { resourceSpans: any[] }
          return data.resourceSpans.flatMap((rs) => {
            const resource = flatten(rs.resource?.attributes)
            return (rs.scopeSpans ?? []).flatMap((ss: any) =>
              (ss.spans ?? []).map((s: any) => ({
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId || undefined,
                name: s.name,
                kind: s.kind,
                attributes: flatten(s.attributes),
                events: (s.events ?? []).map((e: any) => ({
                  name: e.name,
                  attributes: flatten(e.attributes)
                })),
                status: s.status,
                resource
              }))
            )
          })
        }),
    close: () => new Promise<void>((resolve) => server.close(() => resolve()))
  }
}

import type { VendorTokenFormat } from "../src/index.js"

/**
 * One synthetic example per vendor table row, generated from the row's pattern with a seeded
 * PRNG (never a real token): literals kept, each character class filled at random at its
 * shortest allowed length (+4 for open ranges), the first alternative of each group taken.
 */
export const exampleFor = (format: VendorTokenFormat, seed: number): string => {
  let s = seed >>> 0 || 1
  const rand = (n: number) => {
    s ^= s << 13
    s ^= s >>> 17
    s ^= s << 5
    return (s >>> 0) % n
  }
  const src = format.pattern
  let i = 0
  const classChars = (body: string): string[] => {
    const out: string[] = []
    for (let k = 0; k < body.length; k++) {
      let c = body[k]!
      if (c === "\\") {
        const e = body[++k]!
        if (e === "d") out.push(..."0123456789")
        else out.push(e)
        continue
      }
      if (body[k + 1] === "-" && k + 2 < body.length) {
        const to = body[k + 2]!
        for (let x = c.charCodeAt(0); x <= to.charCodeAt(0); x++) out.push(String.fromCharCode(x))
        k += 2
        continue
      }
      out.push(c)
      c = ""
    }
    return out
  }
  const count = (): number => {
    const m = /^\{(\d+)(,(\d*))?\}/.exec(src.slice(i))
    if (m !== null) {
      i += m[0].length
      if (m[2] === undefined) return Number(m[1])
      return m[3] === "" ? Number(m[1]) + 4 : Number(m[1])
    }
    if (src[i] === "?") {
      i++
      return 0
    }
    return 1
  }
  const seq = (): string => {
    let out = ""
    while (i < src.length && src[i] !== ")" && src[i] !== "|") {
      const c = src[i]!
      let atom: () => string
      if (c === "[") {
        const end = src.indexOf("]", i + 2)
        const chars = classChars(src.slice(i + 1, end))
        i = end + 1
        atom = () => chars[rand(chars.length)]!
      } else if (c === "(") {
        const look = src.startsWith("(?=", i) || src.startsWith("(?!", i)
        i += src.startsWith("(?:", i) || look ? 3 : 1
        const first = seq()
        let depth = 0
        while (i < src.length) {
          if (src[i] === "\\") i += 2
          else if (src[i] === "(") {
            depth++
            i++
          } else if (src[i] === ")" && depth-- === 0) break
          else i++
        }
        i++
        if (look) continue
        atom = () => first
      } else if (c === "\\") {
        const e = src[i + 1]!
        i += 2
        atom = e === "d" ? () => String(rand(10)) : () => e
      } else {
        i++
        atom = () => c
      }
      const n = count()
      for (let k = 0; k < n; k++) out += atom()
    }
    return out
  }
  return seq()
}

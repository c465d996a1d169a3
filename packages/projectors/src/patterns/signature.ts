/**
 * A cheap signature of a raw log line, computed in one pass over its characters without building
 * any string: whitespace runs count as one separator, punctuation and digit-free words are hashed
 * as they are, and an alphanumeric run with digits is hashed as one "number" mark when masking
 * would turn it into `<*>` (the same `isNumericRun` rule) or as its letters with each digit run
 * marked otherwise.
 *
 * Why: lines that share a signature share their masked tokens (masking only looks at what the
 * signature keeps), so masking and grouping run once per distinct signature instead of once per
 * line. A 10 MB response of a few templates has a few hundred signatures for tens of thousands of
 * lines. Three running sums mixed into a 64-bit key; a collision would only put one line in the group
 * of another, never show anything unredacted.
 */

// Marks lie above every UTF-16 unit, so no character of a line hashes like one (a control
// character 0x01 once did: `a \x01` and `a 5` shared a type). A space is never hashed as itself.
const NUMBER_MARK = 0x10001
const DIGITS_MARK = 0x10002
const SEPARATOR = 0x20
/** Closes an alphanumeric run in token shapes. */
const RUN_END = 0x10003

const isDigit = (c: number): boolean => c >= 48 && c <= 57
const isUpper = (c: number): boolean => c >= 65 && c <= 90
const isLower = (c: number): boolean => c >= 97 && c <= 122
const isHexLetter = (c: number): boolean => (c >= 65 && c <= 70) || (c >= 97 && c <= 102)

/**
 * Whether the alphanumeric run `line[start, end)` (with `digits` digits) is a variable that
 * masking turns into `<*>`: mostly digits (J12, R02, 1001rts), hex with a `0x` prefix, a number
 * with a 1-3 letter unit or ordinal (10ms, 64172MB, 2nd), a version (v2), hex of 4+ characters
 * with a digit (hash and id fragments; "ee0" stays a word), or digits in two or more places
 * (a1b2c3, base64 fragments: a generated identifier; words carry at most one number: utf8,
 * ipv4). Read in place, no slice and no regex: masking and signatures share it.
 */
export function numericRun(line: string, start: number, end: number, digits: number): boolean {
  const len = end - start
  // The rules below are alternatives (any one makes the run numeric): cheapest first.
  if (digits * 2 >= len) return true
  if (digits === 0) return false
  const c0 = line.charCodeAt(start)
  // 0x1f: hex with a 0x prefix.
  if (len > 2 && c0 === 48 && (line.charCodeAt(start + 1) | 0x20) === 120) {
    let hex = true
    for (let i = start + 2; i < end; i++) {
      const c = line.charCodeAt(i)
      if (!isDigit(c) && !isHexLetter(c)) {
        hex = false
        break
      }
    }
    if (hex) return true
  }
  // Number with a 1-3 letter unit: 10ms, 64172MB.
  let k = start
  while (k < end && isDigit(line.charCodeAt(k))) k++
  if (k > start && end - k >= 1 && end - k <= 3) {
    let letters = true
    for (let i = k; i < end; i++) {
      const c = line.charCodeAt(i)
      if (!isUpper(c) && !isLower(c)) {
        letters = false
        break
      }
    }
    if (letters) return true
  }
  // Version: v2, V10.
  if ((c0 | 0x20) === 118 && digits === len - 1) return true
  if (len >= 4) {
    let hex = true
    for (let i = start; i < end; i++) {
      const c = line.charCodeAt(i)
      if (!isDigit(c) && !isHexLetter(c)) {
        hex = false
        break
      }
    }
    if (hex) return true
  }
  // Two or more digit groups.
  let groups = 0
  let inDigits = false
  for (let i = start; i < end; i++) {
    const d = isDigit(line.charCodeAt(i))
    if (d && !inDigits) groups++
    inDigits = d
  }
  return groups >= 2
}

/** Character classes: 0 punctuation, control and non-ASCII, 1 space, 2 digit, 3 letter. */
/** Every UTF-16 unit (no range check in the loop); only ASCII entries are non-zero. */
const CLASS = new Uint8Array(65536)
// The whitespace `\s` splits on among ASCII: tab, LF, VT, FF, CR and space.
for (const c of [9, 10, 11, 12, 13, 32]) CLASS[c] = 1
for (let c = 48; c <= 57; c++) CLASS[c] = 2
for (let c = 65; c <= 90; c++) CLASS[c] = 3
for (let c = 97; c <= 122; c++) CLASS[c] = 3

/**
 * The signature of one line (see the module comment), written to `out[0]` (low 32 bits) and
 * `out[1]` (high 32 bits): an Int32Array, not a returned number, so that no heap number is boxed
 * per line. The kept symbols feed three running sums (Fletcher-style: `a += symbol`, `b += a`,
 * `c += b`: additions only, so the per-character dependency chain is one add, several times faster
 * than a multiplicative hash); they are mixed into 64 bits at the end.
 */
export function lineSignature(line: string, out: Int32Array): void {
  let a = 0
  let b = 0
  let c = 0
  let symbols = 0
  const n = line.length
  // Each character is read once: `ch` carries the character at `i` (whenever i < n) from the loop
  // that stopped on it to the one that handles it (`charCodeAt` is the costliest step here).
  let ch = 0
  let i = 0
  // Leading whitespace counts for nothing; each later whitespace run followed by more text is one
  // separator (trailing whitespace counts for nothing either).
  for (; i < n; i++) {
    ch = line.charCodeAt(i)
    if (CLASS[ch] !== 1) break
  }
  while (i < n) {
    const k = CLASS[ch]!
    if (k === 0) {
      a = (a + ch) | 0
      b = (b + a) | 0
      c = (c + b) | 0
      symbols++
      i++
      if (i < n) ch = line.charCodeAt(i)
      continue
    }
    if (k === 1) {
      for (i++; i < n; i++) {
        ch = line.charCodeAt(i)
        if (ch !== 32 && (ch - 9) >>> 0 >= 5) break
      }
      if (i < n) {
        a = (a + SEPARATOR) | 0
        b = (b + a) | 0
        c = (c + b) | 0
        symbols++
      }
      continue
    }
    // An alphanumeric run: its leading letters are summed as they come; from its first digit on
    // it is only scanned (digits counted), and summed at its end by the numeric rule. The letter
    // and digit tests are arithmetic (one unsigned compare), measurably cheaper than the table.
    const start = i
    if (k === 3) {
      const a0 = a
      const b0 = b
      const c0 = c
      a = (a + ch) | 0
      b = (b + a) | 0
      c = (c + b) | 0
      for (i++; i < n; i++) {
        ch = line.charCodeAt(i)
        if (((ch | 32) - 97) >>> 0 >= 26) break
        a = (a + ch) | 0
        b = (b + a) | 0
        c = (c + b) | 0
      }
      if (i === n || (ch - 48) >>> 0 >= 10) {
        symbols += i - start
        continue
      }
      a = a0
      b = b0
      c = c0
    }
    // From the first digit (`ch`) to the run's end. Loops are kept in the `for (; i < n; i++)`
    // form: V8 then proves `i` in range (no overflow check, one bounds check).
    let digits = 1
    for (i++; i < n; i++) {
      ch = line.charCodeAt(i)
      if ((ch - 48) >>> 0 < 10) digits++
      else if (((ch | 32) - 97) >>> 0 >= 26) break
    }
    // `digits * 2 >= len` is numericRun's first rule, inlined: plain numbers skip the call.
    if (digits * 2 >= i - start || numericRun(line, start, i, digits)) {
      a = (a + NUMBER_MARK) | 0
      b = (b + a) | 0
      c = (c + b) | 0
      symbols++
      continue
    }
    let inDigits = false
    for (let k2 = start; k2 < i; k2++) {
      const d = line.charCodeAt(k2)
      if (d >= 48 && d <= 57) {
        if (inDigits) continue
        inDigits = true
        a = (a + DIGITS_MARK) | 0
      } else {
        inDigits = false
        a = (a + d) | 0
      }
      b = (b + a) | 0
      c = (c + b) | 0
      symbols++
    }
  }
  // Mix (murmur3 finalizer style) so that nearby sums spread over all bits.
  let h1 = Math.imul(a ^ Math.imul(c, 0x85ebca6b), 0xcc9e2d51) ^ symbols
  h1 = Math.imul(h1 ^ (h1 >>> 15) ^ b, 0x1b873593)
  h1 ^= h1 >>> 13
  let h2 = Math.imul(b ^ Math.imul(a, 0xc2b2ae35), 0x27d4eb2f) ^ c
  h2 = Math.imul(h2 ^ (h2 >>> 16) ^ symbols, 0x165667b1)
  h2 ^= h2 >>> 15
  out[0] = h1
  out[1] = h2
}

/**
 * Open-addressing table from a 64-bit signature (two int32 halves) to a small non-negative
 * integer: no per-line allocation (a 53-bit number key would box one heap number per line). One
 * interleaved Int32Array (lo, hi, value + 1; 0 marks an empty slot, so a new table needs no fill):
 * one buffer to allocate and one cache line per probe.
 */
export class SignatureTable {
  private slots: Int32Array
  private size = 0

  /** `capacity`: initial slots (a power of two); the table doubles when half full. */
  constructor(capacity = 256) {
    this.slots = new Int32Array(capacity * 3)
  }

  /** The value of (lo, hi), or -1. */
  get(lo: number, hi: number): number {
    const slots = this.slots
    const mask = slots.length / 3 - 1
    let slot = (lo ^ (hi >>> 7)) & mask
    for (;;) {
      const at = slot * 3
      const v = slots[at + 2]!
      if (v === 0) return -1
      if (slots[at] === lo && slots[at + 1] === hi) return v - 1
      slot = (slot + 1) & mask
    }
  }

  set(lo: number, hi: number, value: number): void {
    if ((this.size + 1) * 2 > this.slots.length / 3) this.grow()
    const slots = this.slots
    const mask = slots.length / 3 - 1
    let slot = (lo ^ (hi >>> 7)) & mask
    for (;;) {
      const at = slot * 3
      if (slots[at + 2] === 0) {
        slots[at] = lo
        slots[at + 1] = hi
        slots[at + 2] = value + 1
        this.size++
        return
      }
      if (slots[at] === lo && slots[at + 1] === hi) {
        slots[at + 2] = value + 1
        return
      }
      slot = (slot + 1) & mask
    }
  }

  private grow(): void {
    const old = this.slots
    this.slots = new Int32Array(old.length * 2)
    this.size = 0
    for (let at = 0; at < old.length; at += 3)
      if (old[at + 2]! > 0) this.set(old[at]!, old[at + 1]!, old[at + 2]! - 1)
  }
}

/**
 * Token boundaries and shapes of one line, reused from call to call (see {@link tokenShapes}).
 * Typed arrays: a shape half is any int32, which would turn a plain array into boxed doubles.
 */
export interface TokenShapes {
  count: number
  start: Int32Array
  end: Int32Array
  lo: Int32Array
  hi: Int32Array
  /**
   * How the token masks: {@link PLAIN} (no digit and no possible UUID: masking leaves it as it is),
   * {@link MASKED} (masked once per shape) or {@link DIRECT} (a possible UUID: exact group lengths
   * matter, so masked from its text every time).
   */
  kind: Uint8Array
}

export const PLAIN = 0
export const MASKED = 1
export const DIRECT = 2

export const newTokenShapes = (capacity = 64): TokenShapes => ({
  count: 0,
  start: new Int32Array(capacity),
  end: new Int32Array(capacity),
  lo: new Int32Array(capacity),
  hi: new Int32Array(capacity),
  kind: new Uint8Array(capacity)
})

function growTokenShapes(out: TokenShapes): void {
  const capacity = out.start.length * 2
  const grown = <T extends Int32Array | Uint8Array>(a: T, b: T): T => {
    b.set(a)
    return b
  }
  out.start = grown(out.start, new Int32Array(capacity))
  out.end = grown(out.end, new Int32Array(capacity))
  out.lo = grown(out.lo, new Int32Array(capacity))
  out.hi = grown(out.hi, new Int32Array(capacity))
  out.kind = grown(out.kind, new Uint8Array(capacity))
}

/** Whitespace that `\s` matches beyond ASCII. */
const isUnicodeSpace = (c: number): boolean =>
  c === 0xa0 ||
  c === 0x1680 ||
  (c >= 0x2000 && c <= 0x200a) ||
  c === 0x2028 ||
  c === 0x2029 ||
  c === 0x202f ||
  c === 0x205f ||
  c === 0x3000 ||
  c === 0xfeff

/**
 * The whitespace-separated tokens of `line` with, for each, a 64-bit hash of what masking looks at
 * (the per-token version of {@link lineSignature}): tokens of equal shape mask alike, so a token
 * is masked once per shape. Returns false (and fills nothing useful) when the line holds non-ASCII
 * whitespace: the caller then splits it with the regex.
 */
export function tokenShapes(line: string, out: TokenShapes): boolean {
  out.count = 0
  const n = line.length
  // As in lineSignature, `ch` carries the character at `i` (whenever i < n): each is read once,
  // and loops keep the `for (; i < n; i++)` form.
  let ch = 0
  let i = 0
  for (;;) {
    for (; i < n; i++) {
      ch = line.charCodeAt(i)
      if (CLASS[ch] !== 1) break
    }
    if (i === n) return true
    const start = i
    // Running sums as in lineSignature (one add per symbol), mixed into 64 bits at the token's end.
    let a = 0
    let b = 0
    let c = 0
    let symbols = 0
    let hyphen = false
    let anyDigit = false
    for (;;) {
      const k = CLASS[ch]!
      if (k === 1) break
      if (k === 0) {
        if (ch >= 128 && isUnicodeSpace(ch)) return false
        if (ch === 45) hyphen = true
        a = (a + ch) | 0
        b = (b + a) | 0
        c = (c + b) | 0
        symbols++
        i++
        if (i === n) break
        ch = line.charCodeAt(i)
        continue
      }
      const runStart = i
      const a0 = a
      const b0 = b
      const c0 = c
      if (((ch | 32) - 97) >>> 0 < 26) {
        a = (a + ch) | 0
        b = (b + a) | 0
        c = (c + b) | 0
        for (i++; i < n; i++) {
          ch = line.charCodeAt(i)
          if (((ch | 32) - 97) >>> 0 >= 26) break
          a = (a + ch) | 0
          b = (b + a) | 0
          c = (c + b) | 0
        }
      }
      if (i < n && (ch - 48) >>> 0 < 10) {
        anyDigit = true
        let digits = 1
        for (i++; i < n; i++) {
          ch = line.charCodeAt(i)
          if ((ch - 48) >>> 0 < 10) digits++
          else if (((ch | 32) - 97) >>> 0 >= 26) break
        }
        a = a0
        b = b0
        c = c0
        if (digits * 2 >= i - runStart || numericRun(line, runStart, i, digits)) {
          a = (a + NUMBER_MARK) | 0
          b = (b + a) | 0
          c = (c + b) | 0
          symbols++
        } else {
          let inDigits = false
          for (let k2 = runStart; k2 < i; k2++) {
            const d = line.charCodeAt(k2)
            if (d >= 48 && d <= 57) {
              if (inDigits) continue
              inDigits = true
              a = (a + DIGITS_MARK) | 0
            } else {
              inDigits = false
              a = (a + d) | 0
            }
            b = (b + a) | 0
            c = (c + b) | 0
            symbols++
          }
        }
      } else symbols += i - runStart
      // Close the run: "a-1" and "a1-" differ by where runs end.
      a = (a + RUN_END) | 0
      b = (b + a) | 0
      c = (c + b) | 0
      symbols++
      if (i === n) break
    }
    const len = i - start
    let h1 = Math.imul(a ^ Math.imul(c, 0x85ebca6b), 0xcc9e2d51) ^ symbols
    h1 = Math.imul(h1 ^ (h1 >>> 15) ^ b, 0x1b873593)
    h1 ^= h1 >>> 13
    let h2 = Math.imul(b ^ Math.imul(a, 0xc2b2ae35), 0x27d4eb2f) ^ c
    h2 = Math.imul(h2 ^ (h2 >>> 16) ^ len, 0x165667b1)
    h2 ^= h2 >>> 15
    const t = out.count++
    if (t === out.start.length) growTokenShapes(out)
    out.start[t] = start
    out.end[t] = i
    out.lo[t] = h1
    out.hi[t] = h2
    out.kind[t] = hyphen && len >= 36 ? DIRECT : anyDigit ? MASKED : PLAIN
  }
}

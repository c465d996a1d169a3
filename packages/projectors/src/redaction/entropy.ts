/**
 * Shape tests for values that look machine-generated (keys, tokens) rather than written by a
 * person (words, identifiers, versions, durations). Pure and linear in the value's length.
 */

const classOf = (c: number): number =>
  c >= 48 && c <= 57 ? 1 : c >= 65 && c <= 90 ? 2 : c >= 97 && c <= 122 ? 3 : 0

interface Shape {
  readonly alnum: number
  readonly digits: number
  readonly upper: number
  readonly lower: number
  /** Adjacent alphanumeric pairs whose classes (digit / upper / lower) differ. */
  readonly switches: number
}

const shapeOf = (value: string): Shape => {
  let alnum = 0
  let digits = 0
  let upper = 0
  let lower = 0
  let switches = 0
  let prev = 0
  for (let i = 0; i < value.length; i++) {
    const k = classOf(value.charCodeAt(i))
    if (k === 0) {
      prev = 0
      continue
    }
    alnum++
    if (k === 1) digits++
    else if (k === 2) upper++
    else lower++
    if (prev !== 0 && prev !== k) switches++
    prev = k
  }
  return { alnum, digits, upper, lower, switches }
}

/**
 * Random base62 / base64 text: upper case, lower case and (for shorter ones) digits, with the
 * classes switching often. Identifiers (`SQLTransientConnectionException`, `HikariPool1`),
 * host and pod names, hex ids and ULIDs (one case only) fail it. A random 20-character base62
 * string switches class about 60% of the time; CamelCase about 15%.
 */
export const isRandomMixed = (value: string): boolean => {
  const s = shapeOf(value)
  if (s.alnum < 20 || s.upper < 2 || s.lower < 2) return false
  const ratio = s.switches / (s.alnum - 1)
  if (s.digits >= 2) return ratio >= 0.3
  // (Almost) letters only (`hf_…`, or a random body that drew no digit): switching more and
  // upper case neither rare (CamelCase) nor dominant.
  return ratio >= 0.4 && s.upper >= s.alnum * 0.2 && s.lower >= s.alnum * 0.2
}

/** Hex of at least `min` characters with both digits and letters (a key, a hash or an id). */
export const isHexRun = (value: string, min: number): boolean =>
  value.length >= min && /^[0-9a-fA-F]+$/.test(value) && /\d/.test(value) && /[a-fA-F]/.test(value)

/** Lower case letters and digits, long and well mixed (`rdme_…`, `oy2…`, base32 keys). */
export const isRandomLowerDigits = (value: string, min: number): boolean => {
  if (value.length < min || !/^[a-z0-9]+$/.test(value)) return false
  const s = shapeOf(value)
  return s.digits >= 4 && s.lower >= 4 && s.switches / (s.alnum - 1) >= 0.3
}

const UUID_RE = /^[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}$/

/**
 * A value that is secret-shaped when it sits under a key that may hold a credential (a vendor
 * name, `*_key`, `auth`, ...): random mixed text of 16+, hex of 16+, a UUID, or 16+ characters
 * mixing letters, digits and symbols. Numbers, versions, durations, words and paths are not.
 */
export const isSecretShaped = (value: string, minSwitchRatio = 0.25): boolean => {
  if (value.length < 16 || value.length > 4096) return false
  if (UUID_RE.test(value) || isHexRun(value, 16)) return true
  if (/^[\d.,:_/-]+$/.test(value) || /^v?\d+(?:\.\d+)+/.test(value)) return false
  if (/^[A-Za-z]+(?:[ _./-][A-Za-z]+)*$/.test(value)) return false
  const s = shapeOf(value)
  if (s.digits === 0 || s.upper + s.lower === 0) return false
  return s.switches / Math.max(1, s.alnum - 1) >= minSwitchRatio
}

/**
 * The body after a vendor-style prefix (`xyz_…`, `abc-…`): the prefix already says "token", so
 * mixed case with a digit is enough; letters only must still switch case often.
 */
export const isPrefixedBody = (value: string): boolean => {
  const s = shapeOf(value)
  if (s.alnum < 20 || s.upper < 2 || s.lower < 2) return false
  if (s.digits >= 1) return true
  return s.switches / (s.alnum - 1) >= 0.3 && s.upper >= s.alnum * 0.2 && s.lower >= s.alnum * 0.2
}

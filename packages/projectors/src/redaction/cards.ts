import { PLACEHOLDERS } from "./placeholders.js"

/**
 * Payment card numbers (PANs), with or without blanks or dashes between digit groups: a card
 * brand's prefix and length (Visa, Mastercard, American Express, Discover, JCB, Diners, UnionPay)
 * and a valid Luhn check digit. An epoch in milliseconds, an order number or a trace id of the same
 * length fails the prefix or the check (nine in ten random numbers fail Luhn alone).
 */

/**
 * 13-19 digits in one run, or in groups of one separator style (blank or dash), not inside a
 * longer word or number. The two forms are separate alternatives so that no digit run can be
 * split into groups in more than one way (linear matching).
 */
const CANDIDATE_RE = /(?<![\w.+-])(?:\d{13,19}|\d{4}([ -])\d{1,6}(?:\1\d{1,6}){1,4})(?![\w-]|\.\d)/g
/** Cheap pre-check: four digits, maybe a separator, four more (every candidate starts so). */
const HINT_RE = /\d{4}[ -]?\d{4}/

const BRANDS: ReadonlyArray<{ readonly prefix: RegExp; readonly lengths: ReadonlyArray<number> }> = [
  { prefix: /^4/, lengths: [13, 16, 19] }, // Visa
  { prefix: /^(?:5[1-5]|2(?:2[2-9]|[3-6]\d|7[01]|720))/, lengths: [16] }, // Mastercard
  { prefix: /^3[47]/, lengths: [15] }, // American Express
  { prefix: /^(?:6011|65|64[4-9])/, lengths: [16, 19] }, // Discover
  { prefix: /^35(?:2[89]|[3-8]\d)/, lengths: [16, 19] }, // JCB
  { prefix: /^3(?:0[0-5]|[68])/, lengths: [14, 16] }, // Diners Club
  { prefix: /^62/, lengths: [16, 19] } // UnionPay
]

const luhn = (digits: string): boolean => {
  let sum = 0
  let double = false
  for (let i = digits.length - 1; i >= 0; i--) {
    let d = digits.charCodeAt(i) - 48
    if (double) {
      d *= 2
      if (d > 9) d -= 9
    }
    sum += d
    double = !double
  }
  return sum % 10 === 0
}

export const isCardNumber = (digits: string): boolean =>
  BRANDS.some((b) => b.lengths.includes(digits.length) && b.prefix.test(digits)) && luhn(digits)

export const redactCardNumbers = (text: string): string => {
  if (!HINT_RE.test(text)) return text
  return text.replace(CANDIDATE_RE, (match) => {
    const digits = match.replace(/[ -]/g, "")
    return digits.length >= 13 && digits.length <= 19 && isCardNumber(digits) ? PLACEHOLDERS.secret : match
  })
}

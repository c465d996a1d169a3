/** Every redaction leaves one of these typed placeholders in place of what it removed. */
export const PLACEHOLDERS = {
  ip: "<IP>",
  host: "<HOST>",
  email: "<EMAIL>",
  pod: "<POD>",
  pid: "<PID>",
  secret: "<SECRET>",
  jwt: "<JWT>",
  privateKey: "<PRIVATE_KEY>",
  urlCredentials: "<URL_CREDENTIALS>",
  sqlLiteral: "<SQL_LITERAL>",
  stackTrace: "<STACK_TRACE>"
} as const
/** A typed placeholder that replaces a redacted value (`<SECRET>`, `<IP>`, `<HOST>`, ...). */
export type Placeholder = (typeof PLACEHOLDERS)[keyof typeof PLACEHOLDERS]

/** A `replace` callback for rules whose group 1 is kept in front of the secret it replaces. */
export const keepThenSecret = (_whole: string, kept: string): string => `${kept}${PLACEHOLDERS.secret}`

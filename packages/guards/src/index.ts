export * from "./citation-tools.js"
export * from "./draft.js"
export * from "./evidence-guard.js"
export * from "./info-gain.js"
export * from "./negative.js"
export {
  EXCERPT_FIELDS,
  evidenceTexts,
  isBareRowIndex,
  MIN_EXCERPT_CHARS,
  parseRowRef,
  type RefOptions,
  type RowRef,
  refPresent
} from "./refs.js"
export * from "./release.js"
export * from "./released-text.js"
export * from "./semantic-guard.js"

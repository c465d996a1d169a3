export type { LogPattern, PatternGrouping, PatternGroupingOptions } from "./group.js"
export { groupLogPatterns } from "./group.js"
export { normalizeLogMessage } from "./normalize.js"

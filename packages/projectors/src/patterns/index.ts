export type { LogPattern, PatternGrouping, PatternGroupingOptions } from "./group.js"
export { groupLogPatterns, PatternGrouper } from "./group.js"
export { normalizeLogMessage } from "./normalize.js"

export * from "./knowledge.js"
export * from "./logs.js"
export * from "./mysql.js"
export { normalizeText } from "./scope.js"

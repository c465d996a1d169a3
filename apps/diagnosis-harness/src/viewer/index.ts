export * from "./assets.js"
export * from "./model.js"
export { loadRunView, makeViewerRoutes, RUNS_PAGE_SIZE } from "./routes.js"

// Fixes the fast-check seed per commit (see src/testing/property.ts) and prints it on failure.
import fc from "fast-check"
import { propertyTestSettings, seedReport } from "@aiops-harness/core/testing"

const settings = propertyTestSettings()
if (settings.fuzz) console.log(`fast-check fuzz run: seed ${settings.seed}, runs x${settings.runsFactor}`)
fc.configureGlobal({
  seed: settings.seed,
  numRuns: 100 * settings.runsFactor,
  reporter: (details) => {
    if (details.failed)
      throw new Error(`${fc.defaultReportMessage(details)}\n${seedReport(details.seed, settings)}`, {
        cause: details.errorInstance
      })
  }
})

// Fixes the fast-check seed per commit (core testing: property.ts) and prints it on failure.
import fc from "fast-check"
import { configureFastCheck } from "../src/testing/property.js"

configureFastCheck(fc)

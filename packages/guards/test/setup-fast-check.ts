// Fixes the fast-check seed per commit (core testing: property.ts) and prints it on failure.
import fc from "fast-check"
import { configureFastCheck } from "@aiops-harness/core/testing"

configureFastCheck(fc)

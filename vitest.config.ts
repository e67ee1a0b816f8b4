import { defineConfig } from "vitest/config";
import { selectedAdapterNames } from "./test/helpers/adapter-names.js";

// A bad TICKQ_ADAPTERS fails the run here, once, before any test file loads.
selectedAdapterNames();

// Tests that need no Redis: they run without the global setup (no redis-server, no REST server).
const unit = [
  "test/unit/**/*.test.ts",
  "test/chaos-judge.test.ts",
  "test/dashboard/cookie.test.ts",
  "test/schedules/cron-parser.test.ts",
  "test/schedules/declare.test.ts",
  "test/security/redact-user-info.test.ts",
];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: "forks",
    projects: [
      { extends: true, test: { name: "unit", include: unit } },
      {
        extends: true,
        test: { name: "integration", include: ["test/**/*.test.ts"], exclude: unit, globalSetup: ["test/setup/global.ts"] },
      },
    ],
  },
});

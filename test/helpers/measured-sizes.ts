// The sizes `node scripts/build-functions.mjs --measure` prints, gzipped
// bytes: the example Worker with the dashboard, with it stubbed out, and the
// difference. One measuring for the size budgets, as docs/deploy/bundles.md quotes it.
import { execFileSync } from "node:child_process";

export interface MeasuredSizes {
  worker: number;
  workerWithoutDashboard: number;
  dashboard: number;
}

export function measuredSizes(): MeasuredSizes {
  const out = execFileSync(process.execPath, ["scripts/build-functions.mjs", "--measure"], { encoding: "utf8" });
  return JSON.parse(/sizes-bytes (.*)/.exec(out)![1]!) as MeasuredSizes;
}

// A Worker's cold start in workerd (Miniflare 4 runs it), medians of fresh
// starts. workerd freezes the clock inside a Worker, so both figures are taken
// from outside, beside an empty Worker started the same way:
// - global scope: workerd evaluates each Worker's bundle before it is ready.
//   One evaluation is small beside the noise of starting a process, so each
//   run starts `copies` Workers of the bundle and as many empty ones, and
//   divides the difference: what parsing, compiling and evaluating the bundle
//   adds to a start.
// - first request: the first fetch of a freshly started Worker, then a second.
//   The example Worker's first request builds tickq and the app for its env;
//   the dashboard's login page needs no Redis, so this times code, not network.
import { Miniflare } from "miniflare";

const EMPTY_WORKER = 'export default { fetch: () => new Response("ok") };';
// A URL where nothing listens: a request that reached Redis would fail and say so.
const BINDINGS = {
  UPSTASH_REDIS_REST_URL: "http://127.0.0.1:9",
  UPSTASH_REDIS_REST_TOKEN: "cold-start",
  TICKQ_SECRET: "cold-start-secret-0123456789",
};

/** Modules given as a list: Miniflare then passes them to workerd without parsing them itself. */
const workerOf = (name, contents) => ({
  name,
  compatibilityDate: "2025-09-01",
  modules: [{ type: "ESModule", path: "worker.mjs", contents }],
  bindings: BINDINGS,
});

async function timeStart(contents, copies) {
  const started = performance.now();
  const mf = new Miniflare({ workers: Array.from({ length: copies }, (_, i) => workerOf(`w${i}`, contents)) });
  try {
    await mf.ready;
    return performance.now() - started;
  } finally {
    await mf.dispose();
  }
}

async function timeRequests(contents, path) {
  const mf = new Miniflare(workerOf("w", contents));
  try {
    await mf.ready;
    const timed = async () => {
      const started = performance.now();
      const res = await mf.dispatchFetch(`http://worker.local${path}`);
      await res.arrayBuffer();
      if (res.status >= 500) throw new Error(`GET ${path} answered ${res.status} on a fresh start`);
      return performance.now() - started;
    };
    return { first: await timed(), second: await timed() };
  } finally {
    await mf.dispose();
  }
}

const median = (values) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid] : (sorted[mid - 1] + sorted[mid]) / 2;
};

/**
 * Medians over `runs`, in ms. `path`: what the first request asks for; it must not need Redis
 * (the bindings point nowhere).
 */
export async function measureColdStart(script, { runs = 5, copies = 10, path = "/dashboard/login" } = {}) {
  const globalScope = [];
  const first = [];
  const second = [];
  const emptyFirst = [];
  for (let i = 0; i < runs; i++) {
    const empty = await timeStart(EMPTY_WORKER, copies);
    globalScope.push(((await timeStart(script, copies)) - empty) / copies);
    const requests = await timeRequests(script, path);
    first.push(requests.first);
    second.push(requests.second);
    emptyFirst.push((await timeRequests(EMPTY_WORKER, "/")).first);
  }
  return {
    runs,
    copies,
    path,
    globalScope: median(globalScope),
    firstRequest: median(first),
    secondRequest: median(second),
    emptyFirstRequest: median(emptyFirst),
  };
}

// Restate under the peers bench: its server from npm as shipped (a separate process; its log-server
// fsyncs its write-ahead log by default), this process serving the SDK's endpoint (HTTP/2), and
// every run one call to the ingress awaiting its result. A service handler whose steps are
// `ctx.run` calls: each step's result is journaled by the server before the next step starts.
import * as restate from "@restatedev/restate-sdk";
import { startRestate } from "./servers.js";
import { checkSums, type WorkflowSystem } from "./workflow-system.js";

// The SDK 1.17 calls Promise.withResolvers (Node ≥ 22); without it on Node 20 every invocation fails
// and the server retries it forever.
if (!Promise.withResolvers) {
  Promise.withResolvers = <T>() => {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((res, rej) => ((resolve = res), (reject = rej)));
    return { promise, resolve, reject };
  };
}

const tenSteps = restate.service({
  name: "tenSteps",
  handlers: {
    run: async (ctx: restate.Context, steps: number) => {
      let sum = 0;
      for (let i = 0; i < steps; i++) sum += await ctx.run(`s${i}`, () => i);
      return sum;
    },
  },
});

export async function restateSystem(): Promise<WorkflowSystem> {
  const server = await startRestate();
  const endpoint = restate.endpoint().bind(tenSteps);
  const port = await endpoint.listen(0);
  const registered = await fetch(`${server.admin}/deployments`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ uri: `http://127.0.0.1:${port}` }),
  });
  if (!registered.ok)
    throw new Error(`Restate: registering the endpoint: ${registered.status} ${await registered.text()}`);
  const call = async (steps: number): Promise<unknown> => {
    const response = await fetch(`${server.url}/tenSteps/run`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(steps),
    });
    if (!response.ok) throw new Error(`Restate: a run answered ${response.status} ${await response.text()}`);
    return response.json();
  };
  return {
    name: "Restate",
    durability: "as shipped: its log's WAL fsynced (default)",
    async runMany(runs, steps) {
      const t = performance.now();
      const sums = await Promise.all(Array.from({ length: runs }, () => call(steps)));
      const ms = performance.now() - t;
      checkSums("Restate", sums, steps);
      return { ms };
    },
    async close() {
      await server.stop();
    },
  };
}

// One phase of the chaos run, over one adapter: the drop proxies in front of
// the private Redis (and, over HTTP, the local REST server between them),
// the workers, the enqueuer and the fault injector at once; then, faults
// over, the workers keep ticking until nothing is left to do (dead ticks'
// leases run out and their jobs are resurrected), stop, and the phase is
// judged against the ledger.
import { Redis } from "ioredis";
import { startUpstashLocal, type UpstashLocalServer } from "../../tools/upstash-local/server.js";
import { createTickq } from "../../src/index.js";
import { ioredisAdapter } from "../../src/redis/ioredis.js";
import { endpointEnv, openEndpoint, type Endpoint } from "./connect.js";
import { startDropProxy } from "./drop-proxy.js";
import { faultsFor, injectFaults } from "./faults.js";
import { startHttpDropProxy, type HttpDropProxy } from "./http-drop-proxy.js";
import { chaosJobs, planJobs } from "./jobs.js";
import { openLedger } from "./ledger.js";
import type { PhaseContext } from "./phase-types.js";
import { deleteUnder, settle, settleLimits } from "./settle.js";
import { beginGuardBytes } from "./memory.js";
import { judge, locateExpired, locateJobs, type PhaseResult } from "./verify.js";
import { startWorkers } from "./workers.js";
import { trickle } from "./enqueue.js";
import { flowKeyStates, slotsHeld, traceFlow } from "./flow-state.js";

export interface PhaseOptions extends PhaseContext {
  jobs: number;
}

export type { PhaseResult };

export async function runPhase(o: PhaseOptions): Promise<PhaseResult> {
  const started = Date.now();
  const prefix = `chaos:${o.runId}:${o.adapter}:`;
  const ledgerPrefix = `tickq-chaos:${o.runId}:${o.adapter}:`;
  const ledger = openLedger(o.ledgerUrl, ledgerPrefix);
  const admin = new Redis(o.redis.url, { maxRetriesPerRequest: null });
  admin.on("error", () => {});
  const quiet = { info: () => {}, warn: () => {}, error: () => {} };
  const direct = createTickq({ redis: ioredisAdapter(admin), prefix, jobs: chaosJobs(ledger), logger: quiet });
  const tcp = await startDropProxy(o.redis.port);
  let rest: UpstashLocalServer | undefined;
  let http: HttpDropProxy | undefined;
  let endpoint: Endpoint = { adapter: "ioredis", url: tcp.url };
  if (o.adapter === "upstash") {
    rest = await startUpstashLocal({ redisUrl: tcp.url, token: `chaos-${o.runId}` });
    http = await startHttpDropProxy(rest.url);
    endpoint = { adapter: "upstash", url: http.url, token: rest.token };
  }
  const workers = startWorkers(o.workers, {
    ...endpointEnv(endpoint),
    PREFIX: prefix,
    LEDGER_URL: o.ledgerUrl,
    LEDGER_PREFIX: ledgerPrefix,
    LEASE_MS: String(o.leaseMs),
    BUDGET_MS: String(o.budgetMs),
  });
  const enqueuer = openEndpoint(endpoint);
  try {
    const windowMs = o.seconds * 1000;
    const plan = planJobs(o.jobs, o.rng, o.adapter[0]!, windowMs * 0.3);
    // A short timeout: an enqueue held up by a pause or a restart gives up
    // while its call may still land, and is sent again with the same jids.
    const tq = createTickq({
      redis: enqueuer.adapter,
      prefix,
      jobs: chaosJobs(ledger),
      redisTimeoutMs: 300,
      logger: quiet,
    });
    const faults = faultsFor({ admin, redis: o.redis, workers, tcp, http, rng: o.rng });
    const [enqueued, counts] = await Promise.all([
      trickle(tq, plan, windowMs * 0.7, o.rng),
      injectFaults({ faults, perKind: o.perKind, windowMs, rng: o.rng, log: (line) => o.log(`${o.adapter}: ${line}`) }),
    ]);
    o.log(`${o.adapter}: faults over, settling`);
    const trace = traceFlow(admin, prefix, process.env.CHAOS_FLOW_TRACE, `${o.adapter} settling`);
    const settled = await settle(direct, settleLimits(o.settleSeconds, o.leaseMs));
    await trace.stop();
    // Not settled: how the flow keys stood, so the problem says leak or slow.
    const flowKeys = settled.settled ? [] : await flowKeyStates(admin, prefix).catch(() => []);
    await workers.stop(o.budgetMs + 3_000);
    // The work ran out: any slot still held is one no ack or resurrection freed.
    const leakedSlots = settled.settled ? await slotsHeld(admin, prefix) : [];
    const stats = await direct.stats();
    const evidence = {
      plan,
      ledger: await ledger.read(),
      places: await locateJobs(admin, prefix),
      expired: await locateExpired(admin, prefix),
      stats,
      answers: enqueued,
    };
    return judge(evidence, {
      adapter: o.adapter,
      faults: counts,
      faultsAsked: o.perKind,
      enqueueRetries: enqueued.retries,
      workerCrashes: workers.crashes(),
      settled: settled.settled,
      settleSeconds: o.settleSeconds,
      settle: settled,
      flowKeys,
      leakedSlots,
      beginGuardBytes: await beginGuardBytes(admin, prefix),
      seconds: Math.round((Date.now() - started) / 1000),
      workerStderr: workers.stderr(),
    });
  } finally {
    await workers.stop(1_000);
    enqueuer.close();
    await http?.close();
    await rest?.close();
    await tcp.close();
    await ledger.clear();
    ledger.close();
    await deleteUnder(admin, prefix);
    admin.disconnect();
  }
}

// Workflows when Redis is full (maxmemory, noeviction), on a private
// redis-server over every adapter: the runs a tick holds when Redis fills
// go on to their end, each step once (their commits are allowed: allow-oom);
// no run is claimed while Redis is full, and stats() says so; cancels and
// events still land. workflow_tick at maxmemory run twice answers the same.
import { afterAll, beforeAll, beforeEach, afterEach, describe, expect, it } from "vitest";
import * as protocol from "../../../src/protocol/index.js";
import { createTickq, type JobLogger } from "../../../src/index.js";
import type { OrderedRegistry, WorkflowInputs } from "../../../src/index.js";
import type { WorkflowStep, WorkflowsOption } from "../../../src/workflows/types.js";
import { onlySelected } from "../../helpers/adapter-names.js";
import { startFullRedis, type FullRedis } from "../../helpers/full-redis.js";
import type { Harness } from "../../helpers/harness.js";
import type { OpenedAdapter } from "../../helpers/open-adapter.js";
import { sleep } from "../../helpers/redis.js";
import { scriptCalls } from "../../helpers/script-calls.js";

let full: FullRedis;
beforeAll(async () => {
  full = await startFullRedis();
});
afterAll(async () => {
  await full?.stop();
});

const cases = onlySelected([{ name: "ioredis" }, { name: "upstash" }, { name: "rest" }]);

describe.each(cases)("workflows at maxmemory over $name", ({ name }) => {
  let opened: OpenedAdapter;
  let logged: string[];
  const logger: JobLogger = {
    info: () => {},
    warn: (m) => void logged.push(m),
    error: (m) => void logged.push(m),
  };
  const make = <W extends WorkflowInputs>(workflows: WorkflowsOption<W>) =>
    createTickq<Record<never, never>, OrderedRegistry, W>({
      redis: opened.adapter,
      prefix: "wfmem:",
      jobs: {},
      logger,
      workflows,
    });

  beforeEach(async () => {
    await full.unpin();
    await full.admin.flushall();
    opened = full.open(name);
    logged = [];
    // The scripts Redis caches count in used_memory: load them before Redis is pinned full.
    const warm = createTickq({
      redis: opened.adapter,
      prefix: "wfmem-warm:",
      jobs: {},
      logger,
      workflows: { w: { run: async (_: null, step: WorkflowStep) => step.waitForEvent("e", { event: "e" }) } },
    });
    const id = await warm.workflows.start("w", null);
    await warm.tick({ budgetMs: 500 });
    await warm.workflows.sendEvent("e", { data: 1 });
    await warm.workflows.cancel(id);
    await warm.stats();
  });
  afterEach(async () => {
    await opened.close();
    await full.unpin();
  });

  it("runs a tick holds when Redis fills go on to their end, each step once, no commit refused", async () => {
    const ran: Record<string, number> = {};
    let open: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    const count = (key: string) => {
      ran[key] = (ran[key] ?? 0) + 1;
    };
    const tq = make({
      three: {
        retry: 0,
        run: async (input: { i: number }, step) => {
          await step.run("first", async () => {
            count(`${input.i}:first`);
            await gate;
            return "x".repeat(1_000);
          });
          await step.run("second", () => void count(`${input.i}:second`));
          await step.run("third", () => void count(`${input.i}:third`));
          return input.i;
        },
      },
    });
    const ids = await Promise.all([0, 1, 2, 3, 4].map((i) => tq.workflows.start("three", { i })));
    const ticking = tq.tick({ budgetMs: 15_000 });
    for (let t = 0; t < 200 && Object.keys(ran).length < 5; t++) await sleep(20);
    expect(Object.keys(ran)).toHaveLength(5);
    await full.pinFull();
    open();
    await ticking;
    for (const id of ids) expect((await tq.workflows.get(id))?.status, id).toBe("completed");
    expect(Object.values(ran)).toEqual(Array(15).fill(1));
    expect(logged.filter((m) => /wrote nothing|workflow call failed/.test(m))).toEqual([]);
  });

  it("no run is claimed while Redis is full and stats() says why; once memory frees, the run runs", async () => {
    let ran = 0;
    const tq = make({ one: { run: async (_: null, step) => step.run("only", () => ++ran) } });
    const id = await tq.workflows.start("one", null);
    await full.pinFull();
    const report = await tq.tick({ budgetMs: 1_000 });
    expect(ran).toBe(0);
    expect(report.more).toBe(false);
    expect((await tq.workflows.get(id))?.steps).toEqual([]);
    const { warnings } = await tq.stats();
    expect(warnings.join("\n")).toMatch(/over its maxmemory.*no workflow run is claimed/);
    await full.unpin();
    await tq.tick({ budgetMs: 2_000 });
    expect(await tq.workflows.result(id, { timeoutMs: 1_000 })).toBe(1);
    expect(ran).toBe(1);
    expect((await tq.stats()).warnings.join("\n")).not.toMatch(/maxmemory/);
  });

  it("startAndWait while Redis is full starts no run and throws REDIS_FULL; its tick still began and ended", async () => {
    let ran = 0;
    const tq = make({ one: { run: async (_: null, step) => step.run("only", () => ++ran) } });
    await full.pinFull();
    await expect(tq.workflows.startAndWait("one", null, { id: "r1" })).rejects.toMatchObject({ code: "REDIS_FULL" });
    expect(await tq.workflows.get("r1")).toBeUndefined();
    expect(ran).toBe(0);
    expect(await tq.ticks()).toEqual([]);
    await full.unpin();
    expect(await tq.workflows.startAndWait("one", null, { id: "r1" })).toBe(1);
  });

  it("workflow_tick at maxmemory, run twice with the same arguments, claims nothing and answers the same", async () => {
    const tq = make({ one: { run: async (_: null, step) => step.run("only", () => 1) } });
    await tq.workflows.start("one", null, { id: "r1" });
    await full.admin.hset("wfmem:tick:T", "seq", 1);
    await full.admin.pexpire("wfmem:tick:T", 60_000);
    await full.pinFull();
    const h = { adapter: opened.adapter, redis: full.admin, prefix: "wfmem:" } as unknown as Harness;
    const { first } = await scriptCalls(h).callTwice(
      protocol.workflow_tick,
      { ticks: "ticks", lease: "tick:T" },
      { tickId: "T", call: 2, claim: 10, retentionMs: 60_000, commits: [] },
    );
    expect(first).toMatchObject({ leaseHeld: true, claimed: [], more: false });
    expect(await full.admin.hget("wfmem:wf:run:r1", "owner")).toBeNull();
  });

  it("a cancel and an event land while Redis is full", async () => {
    const tq = make({
      waits: { run: async (input: { k: string }, step) => step.waitForEvent("go", { event: "go", match: input.k }) },
    });
    const waiting = await tq.workflows.start("waits", { k: "a" });
    const cancelled = await tq.workflows.start("waits", { k: "b" });
    await tq.tick({ budgetMs: 1_000 });
    expect((await tq.workflows.get(waiting))?.status).toBe("waiting");
    await full.pinFull();
    expect(await tq.workflows.sendEvent("go", { match: "a", data: { ok: true } })).toBe(1);
    expect(await tq.workflows.cancel(cancelled)).toBe("cancelled");
    expect((await tq.workflows.get(cancelled))?.status).toBe("cancelled");
    await full.unpin();
    await tq.tick({ budgetMs: 2_000 });
    expect(await tq.workflows.result(waiting, { timeoutMs: 1_000 })).toEqual({ ok: true });
  });
});

import { describe, expect, it } from "vitest";
import type { JobInfo, JobPage, ListOptions, JobState } from "../../../src/index.js";
import { TickqError } from "../../../src/errors.js";
import { encodeCursor } from "../../../src/admin/cursor.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const job = (n: number, name = "ok", queue = "default") =>
  JSON.stringify({ class: name, args: [n], jid: `j${n}`, queue, retry: true });

type Lister = { jobs: { list(state: JobState, options?: ListOptions): Promise<JobPage> } };

async function all(
  tq: Lister,
  state: JobState,
  options: ListOptions = {},
  between?: () => Promise<void>,
): Promise<JobInfo[]> {
  const out: JobInfo[] = [];
  let cursor: string | null = null;
  do {
    const page: JobPage = await tq.jobs.list(state, { ...options, cursor });
    out.push(...page.jobs);
    cursor = page.cursor;
    await between?.();
  } while (cursor);
  return out;
}

describe.each(adapterCases)("tq.jobs.list over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "list");

  it("pages through 10,000 dead jobs without repeats or gaps while jobs die meanwhile", async () => {
    const tq = h.make({});
    // Many share a score, as the dead jobs of one ack do.
    const entries = Array.from({ length: 10_000 }, (_, i) => [1_000 + Math.floor(i / 300), job(i)] as const);
    for (let i = 0; i < entries.length; i += 2_000)
      await h.redis.zadd(`${h.prefix}dead`, ...entries.slice(i, i + 2_000).flat());
    let added = 0;
    const addSome = async () => {
      // newer deaths, and some at the very scores being paged
      await h.redis.zadd(`${h.prefix}dead`, 5_000 + added, job(100_000 + added), 1_010, job(200_000 + added));
      added++;
    };
    for (const order of ["newest", "oldest"] as const) {
      const seen = await all(tq, "dead", { order, limit: 333 }, addSome);
      const original = seen.filter((j) => Number(j.jid.slice(1)) < 10_000).map((j) => j.jid);
      expect(new Set(original).size).toBe(original.length);
      expect(original).toHaveLength(10_000);
      const ats = seen.map((j) => j.at!);
      expect(ats).toEqual([...ats].sort((a, b) => (order === "oldest" ? a - b : b - a)));
    }
  });

  it("keeps its place when the jobs just shown are deleted or retried", async () => {
    const tq = h.make({});
    await h.redis.zadd(`${h.prefix}dead`, ...Array.from({ length: 100 }, (_, i) => [7, job(i)]).flat());
    const seen: string[] = [];
    const taken: string[] = [];
    let cursor: string | null = null;
    for (let i = 0; ; i++) {
      const page: JobPage = await tq.jobs.list("dead", { limit: 10, cursor, order: "oldest" });
      seen.push(...page.jobs.map((j) => j.jid));
      cursor = page.cursor;
      if (!cursor) break;
      if (i % 2 === 0)
        await tq.jobs.delete(page.jobs.at(-1)!.jid); // the last job shown
      else {
        // the job the cursor resumes at, as a tick or another caller would take it
        const members = await h.redis.zrange(`${h.prefix}dead`, "0", "-1");
        const next = members[members.findIndex((m) => JSON.parse(m).jid === page.jobs.at(-1)!.jid) + 1]!;
        taken.push(JSON.parse(next).jid);
        await h.redis.zrem(`${h.prefix}dead`, next);
      }
    }
    expect(new Set(seen).size).toBe(seen.length);
    expect(seen.sort()).toEqual(
      Array.from({ length: 100 }, (_, i) => `j${i}`)
        .filter((j) => !taken.includes(j))
        .sort(),
    );
  });

  it("filters by name and queue, with short pages that still carry a cursor", async () => {
    const tq = h.make({});
    const members = Array.from({ length: 12_000 }, (_, i) => [
      i,
      job(i, i % 1_000 === 0 ? "rare" : "common", i % 2000 === 0 ? "q2" : "default"),
    ]);
    for (let i = 0; i < members.length; i += 3_000)
      await h.redis.zadd(`${h.prefix}retry`, ...members.slice(i, i + 3_000).flat());
    const rare = await all(tq, "retry", { name: "rare", limit: 5 });
    expect(rare.map((j) => j.jid)).toEqual(Array.from({ length: 12 }, (_, i) => `j${i * 1_000}`));
    const inQ2 = await all(tq, "retry", { name: "rare", queue: "q2" });
    expect(inQ2.map((j) => j.jid)).toEqual(Array.from({ length: 6 }, (_, i) => `j${i * 2_000}`));
  });

  it("lists a queue next job first, with positions, and pages while jobs are added and fetched", async () => {
    const tq = h.make({ ok: () => {} });
    await h.redis.lpush(`${h.prefix}queue:default`, ...Array.from({ length: 1_000 }, (_, i) => job(i)));
    await h.redis.sadd(`${h.prefix}queues`, "default");
    const first = await tq.jobs.list("queued", { limit: 3 });
    expect(first.jobs.map((j) => [j.jid, j.position, j.state, j.queue])).toEqual([
      ["j0", 0, "queued", "default"],
      ["j1", 1, "queued", "default"],
      ["j2", 2, "queued", "default"],
    ]);

    let n = 10_000;
    const churn = async () => {
      await h.redis.lpush(`${h.prefix}queue:default`, job(n++), job(n++)); // enqueued at the tail
    };
    const oldest = await all(tq, "queued", { limit: 37 }, churn);
    const ids = oldest.map((j) => j.jid).filter((j) => Number(j.slice(1)) < 1_000);
    expect(ids).toEqual(Array.from({ length: 1_000 }, (_, i) => `j${i}`));

    const newest = await all(tq, "queued", { limit: 41, order: "newest" }, async () => {
      await churn();
      await h.redis.rpop(`${h.prefix}queue:default`); // a tick fetched the head
    });
    const seen = newest.map((j) => j.jid);
    expect(new Set(seen).size).toBe(seen.length);
    expect(newest.length).toBeGreaterThan(1_000);
  });

  it("walks every queue by name when none is given", async () => {
    const tq = h.make({ ok: () => {} });
    for (const queue of ["b", "a", "c"])
      await tq.enqueueBulk([1, 2].map((n) => ({ name: "ok" as const, args: [n], queue })));
    const jobs = await all(tq, "queued", { limit: 4 });
    expect(jobs.map((j) => `${j.queue}${j.job.args[0]}`)).toEqual(["a1", "a2", "b1", "b2", "c1", "c2"]);
  });

  it("lists scheduled soonest first and running jobs with their tick", async () => {
    let running: JobPage | undefined;
    const tq = h.make({
      later: () => {},
      look: async () => {
        running ??= await tq.jobs.list("running");
      },
    });
    await tq.enqueue("later", [2], { delayMs: 120_000 });
    await tq.enqueue("later", [1], { delayMs: 60_000 });
    const scheduled = await tq.jobs.list("scheduled");
    expect(scheduled.jobs.map((j) => j.job.args[0])).toEqual([1, 2]);
    await tq.enqueueBulk([
      { name: "look", args: [] },
      { name: "look", args: [] },
    ]);
    const report = await tq.tick({ concurrency: 1 });
    expect(running!.jobs.length).toBeGreaterThanOrEqual(1);
    expect(running!.jobs[0]).toMatchObject({ state: "running", name: "look", tick: report.tickId, tickAlive: true });
  });

  it("refuses a bad state, limit or cursor", async () => {
    const tq = h.make({});
    await expect(tq.jobs.list("nope" as JobState)).rejects.toMatchObject({ code: "BAD_STATE" });
    await expect(tq.jobs.list("dead", { limit: 0 })).rejects.toMatchObject({ code: "BAD_ARGS" });
    await expect(tq.jobs.list("dead", { cursor: "garbage" })).rejects.toMatchObject({ code: "BAD_CURSOR" });
    await h.redis.zadd(`${h.prefix}retry`, 1, job(1), 2, job(2));
    const page = await tq.jobs.list("retry", { limit: 1 });
    const error = await tq.jobs.list("dead", { cursor: page.cursor }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(TickqError);
    expect(error).toMatchObject({ code: "BAD_CURSOR", message: expect.stringMatching(/another listing/) });
  });

  it("refuses a cursor of the right listing whose fields were forged, before it reaches Redis", async () => {
    const tq = h.make({});
    await h.redis.zadd(`${h.prefix}retry`, 1, job(1), 2, job(2));
    await h.redis.lpush(`${h.prefix}queue:default`, job(3), job(4));
    const MALFORMED = { code: "BAD_CURSOR", message: expect.stringMatching(/malformed/) };
    const sorted = { state: "retry", order: "oldest", queue: "", name: "" };
    const queued = { state: "queued", order: "oldest", queue: "default", name: "" };
    for (const fields of [
      ["1)", "j", "0"],
      ["1", "j", "-1"],
      ["1", "j", "x"],
      ["1", "j"],
      ["nan", "j", "0"],
    ]) {
      await expect(tq.jobs.list("retry", { cursor: encodeCursor(sorted, fields) })).rejects.toMatchObject(MALFORMED);
    }
    for (const fields of [
      ["default", "x", "j", "0", ""],
      ["default", "-2", "j", "0", ""],
      ["default", "1", "j"],
      ["default", "1", "j", "1e9", ""],
    ]) {
      await expect(
        tq.jobs.list("queued", { queue: "default", cursor: encodeCursor(queued, fields) }),
      ).rejects.toMatchObject(MALFORMED);
    }
    // The cursors pages answer still pass.
    const first = await tq.jobs.list("retry", { limit: 1 });
    expect((await tq.jobs.list("retry", { limit: 1, cursor: first.cursor! })).jobs).toHaveLength(1);
    const head = await tq.jobs.list("queued", { queue: "default", limit: 1 });
    expect((await tq.jobs.list("queued", { queue: "default", limit: 1, cursor: head.cursor! })).jobs).toHaveLength(1);
  });
});

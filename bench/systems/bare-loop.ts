// The floor of a Redis-list drain in one loop, for issue 46's "≥ 40 % of the bare loop": one Lua
// call acks the last batch (DEL of its in-process list) and moves the next 100 jobs from the queue
// to that list (LRANGE, LTRIM, LPUSH); JS parses each job and awaits its handler. No lease, no
// retries, no replay safety: not a queue, the cost a tick's per-job work is measured against.
import { Redis } from "ioredis";
import { durationOf, jobCount, work, type Jobs } from "../jobs.js";
import type { SystemFactory } from "./types.js";

const MOVE = `
redis.call("DEL", KEYS[2])
if ARGV[1] == "0" then return {} end
local jobs = redis.call("LRANGE", KEYS[1], -tonumber(ARGV[1]), -1)
if #jobs == 0 then return jobs end
redis.call("LTRIM", KEYS[1], 0, -#jobs - 1)
redis.call("LPUSH", KEYS[2], unpack(jobs))
return jobs`;

const handlers: Record<string, (args: unknown[]) => unknown> = {
  noop: () => {},
  sleep: ([ms]) => work(ms as number),
};

export const bareLoopSystem: SystemFactory = async (redisUrl, label) => {
  const redis = new Redis(redisUrl);
  const prefix = `bench:${label}:`;
  const queue = `${prefix}queue`;
  const inproc = `${prefix}inproc`;
  redis.defineCommand("bareMove", { numberOfKeys: 2, lua: MOVE });
  const move = (batch: number) =>
    (redis as unknown as { bareMove(a: string, b: string, n: number): Promise<string[]> }).bareMove(
      queue,
      inproc,
      batch,
    );
  let jid = 0;
  return {
    name: "bare loop",
    async enqueue(jobs: Jobs) {
      const sleeping = typeof jobs !== "number";
      const n = jobCount(jobs);
      for (let i = 0; i < n; i += 1_000) {
        const chunk = Array.from({ length: Math.min(1_000, n - i) }, (_, k) =>
          JSON.stringify({
            class: sleeping ? "sleep" : "noop",
            args: [sleeping ? durationOf(jobs, i + k) : i + k],
            jid: (jid++).toString(16).padStart(24, "0"),
            queue: "default",
            retry: true,
            created_at: Date.now() / 1000,
            enqueued_at: Date.now() / 1000,
          }),
        );
        await redis.lpush(queue, ...chunk);
      }
    },
    async drain(n, options = {}) {
      const batch = options.batch ?? 100;
      let done = 0;
      let roundTrips = 0;
      while (done < n) {
        const raws = await move(batch);
        roundTrips++;
        if (raws.length === 0) throw new Error(`the bare loop drained only ${done} of ${n}`);
        for (const raw of raws) {
          const job = JSON.parse(raw) as { class: string; args: unknown[] };
          await handlers[job.class]!(job.args);
          done++;
        }
      }
      await move(0); // the last batch's ack
      return { roundTrips: roundTrips + 1 };
    },
    async idle(ms) {
      await new Promise((r) => setTimeout(r, ms));
    },
    async close() {
      await redis.del(queue, inproc);
      redis.disconnect();
    },
  };
};

// A process dies (a job of one of its ticks kills it) while another of its
// ticks holds a suspect: the suspect waited for the process's other jobs,
// so it never ran beside the killer, and its death is not counted for it.
// Counted, an innocent job would go dead as poison after maxResurrections
// such deaths.
import { spawn } from "node:child_process";
import { describe, expect, it } from "vitest";
import { adapterCases, type AdapterCase } from "../../helpers/adapters.js";
import { fixtureArgs } from "../../helpers/fixture-bundle.js";
import { useHarness } from "../../helpers/harness.js";
import { sleep } from "../../helpers/redis.js";

const LEASE_MS = 800;

function childProcess(adapterCase: AdapterCase, prefix: string): Promise<{ killed: boolean; stderr: string }> {
  const child = spawn(process.execPath, fixtureArgs("solo-process-child.ts"), {
    env: {
      ...process.env,
      ADAPTER: adapterCase.name,
      PREFIX: prefix,
      LEASE_MS: String(LEASE_MS),
      ENDPOINTS: JSON.stringify(adapterCase.endpoints()),
    },
    stdio: ["ignore", "ignore", "pipe"],
  });
  let stderr = "";
  child.stderr.on("data", (d) => (stderr += d));
  return new Promise((resolve) =>
    child.once("exit", (_code, signal) => resolve({ killed: signal === "SIGKILL", stderr })),
  );
}

describe.each(adapterCases)("a process killed beside a suspect, over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "solo-death");

  it("counts no death for the suspect, which waited, and leaves it a suspect", { timeout: 30_000 }, async () => {
    const tq = h.make(
      { kill: { queue: "busy", perform: () => {} }, innocent: { queue: "other", perform: () => {} } },
      { queues: ["none"] },
    );
    await tq.enqueue("kill", []);
    await tq.enqueue("innocent", []);
    const [innocent] = await h.redis.lrange(`${h.prefix}queue:other`, 0, -1);
    await h.redis.hset(`${h.prefix}suspects`, innocent!, 1); // a dead tick left it behind

    const { killed, stderr } = await childProcess(adapterCase, h.prefix);
    expect(killed, stderr).toBe(true);
    await sleep(LEASE_MS + 200);
    // A tick serving no queue of theirs resurrects both dead ticks' jobs.
    expect((await tq.tick()).resurrected).toBe(2);

    expect(await h.redis.hget(`${h.prefix}resurrections`, innocent!)).toBeNull();
    expect(await h.redis.hexists(`${h.prefix}suspects`, innocent!)).toBe(1);
    expect(await h.redis.lrange(`${h.prefix}queue:other`, 0, -1)).toEqual([innocent]);
  });
});

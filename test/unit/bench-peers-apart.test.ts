// The peers `npm run bench:peers` measures tickq against are installed in bench/peers/ from their own
// package.json and lock: tickq's package.json and lock never gain them, and the root type-check
// leaves bench/peers out (its imports resolve only once `npm ci --prefix bench/peers` ran).
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";

const root = join(import.meta.dirname, "../..");
const json = (path: string) => JSON.parse(readFileSync(join(root, path), "utf8"));
const peers = Object.keys(json("bench/peers/package.json").dependencies as Record<string, string>);

describe("the peers bench's dependencies", () => {
  it("are none of tickq's own, in its package.json or its lock", () => {
    const manifest = json("package.json");
    const lock = json("package-lock.json") as { packages: Record<string, unknown> };
    const own = Object.keys({ ...manifest.dependencies, ...manifest.devDependencies, ...manifest.peerDependencies });
    expect(peers).toEqual(expect.arrayContaining(["groupmq", "@restatedev/restate-server", "@dbos-inc/dbos-sdk"]));
    expect(peers.filter((name) => own.includes(name))).toEqual([]);
    expect(peers.filter((name) => `node_modules/${name}` in lock.packages)).toEqual([]);
  });

  it("are pinned in bench/peers' own lock, which `npm run bench:peers` installs from", () => {
    const lock = json("bench/peers/package-lock.json") as { packages: Record<string, { version?: string }> };
    for (const name of peers) expect(lock.packages[`node_modules/${name}`]?.version, name).toBeTruthy();
    expect(json("package.json").scripts["bench:peers"]).toMatch(/^npm ci --prefix bench\/peers /);
  });

  it("are left out of the root type-check, which CI runs without them", () => {
    expect(json("tsconfig.json").exclude).toContain("bench/peers");
  });
});

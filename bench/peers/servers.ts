// The servers the peers bench starts and stops itself: private redis-servers (with and without
// `appendfsync always`) and Restate's server from its npm package, each on free loopback ports, in a
// temporary folder removed after; and the URL of DBOS's own database on the PostgreSQL at PG_URL.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { answers, freePort } from "../../src/platforms/node/find-redis.js";

export interface Server {
  url: string;
  stop(): Promise<void>;
}

const here = new URL(".", import.meta.url).pathname;

// Whatever ends this process (an error, process.exit), the servers it started end with it.
const running = new Set<ChildProcess>();
process.on("exit", () => {
  for (const child of running) child.kill("SIGTERM");
});

async function waitFor(what: string, ready: () => Promise<boolean>, child: ChildProcess): Promise<void> {
  for (let i = 0; i < 300; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode} before it answered`);
    if (await ready()) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} did not answer in 30 s`);
}

/** Stops `child` by its own pid and waits for it to exit, then removes `dir`. */
function stopper(child: ChildProcess, dir: string): () => Promise<void> {
  running.add(child);
  child.once("exit", () => running.delete(child));
  return async () => {
    if (child.exitCode === null) {
      const exited = new Promise((r) => child.once("exit", r));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
}

/** Stops what was started, then fails with the error that stopped the start. */
const failWith =
  (stop: () => Promise<void>) =>
  async (error: unknown): Promise<never> => {
    await stop();
    throw error;
  };

/** A redis-server of its own: `fsyncAlways` writes an append-only file fsynced on every write, else no persistence. */
export async function startRedis(fsyncAlways: boolean): Promise<Server> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), "tickq-peers-redis-"));
  const persistence = fsyncAlways
    ? ["--appendonly", "yes", "--appendfsync", "always", "--save", ""]
    : ["--appendonly", "no", "--save", ""];
  const child = spawn("redis-server", ["--port", String(port), "--bind", "127.0.0.1", "--dir", dir, ...persistence], {
    stdio: "ignore",
  });
  const url = `redis://127.0.0.1:${port}`;
  const stop = stopper(child, dir);
  await waitFor(`redis-server on ${port}`, () => answers(url, 200), child).catch(failWith(stop));
  return { url, stop };
}

/** Restate's server as shipped (its default configuration), ports moved to free ones. `url` is its ingress. */
export async function startRestate(): Promise<Server & { admin: string }> {
  const [ingress, admin, node] = [await freePort(), await freePort(), await freePort()];
  const dir = mkdtempSync(join(tmpdir(), "tickq-peers-restate-"));
  const child = spawn(
    join(here, "node_modules/.bin/restate-server"),
    ["--no-logo", "--listen-mode", "tcp", "--base-dir", dir],
    {
      stdio: "ignore",
      env: {
        ...process.env,
        RESTATE_DISABLE_TELEMETRY: "true",
        RESTATE_INGRESS__BIND_ADDRESS: `127.0.0.1:${ingress}`,
        RESTATE_ADMIN__BIND_ADDRESS: `127.0.0.1:${admin}`,
        RESTATE_BIND_ADDRESS: `127.0.0.1:${node}`,
        RESTATE_ADVERTISED_ADDRESS: `http://127.0.0.1:${node}`,
      },
    },
  );
  const ok = (url: string) => () =>
    fetch(url).then(
      (r) => r.ok,
      () => false,
    );
  const stop = stopper(child, dir);
  await waitFor("restate-server", ok(`http://127.0.0.1:${admin}/health`), child)
    .then(() => waitFor("restate-server's ingress", ok(`http://127.0.0.1:${ingress}/restate/health`), child))
    .catch(failWith(stop));
  return { url: `http://127.0.0.1:${ingress}`, admin: `http://127.0.0.1:${admin}`, stop };
}

/** The PostgreSQL DBOS uses: PG_URL, else the one on 127.0.0.1:5432 (trust auth). */
export const postgresUrl = () => process.env.PG_URL ?? "postgresql://postgres@127.0.0.1:5432/postgres";

/** `postgresUrl()` with its database replaced by `name`. */
export function databaseUrl(name: string): string {
  const url = new URL(postgresUrl());
  url.pathname = `/${name}`;
  return url.toString();
}

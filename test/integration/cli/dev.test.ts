// `tickq dev` as a user runs it: the bundled CLI as a child process in a temporary project whose
// jobs and workflows are a .ts module. A job enqueued over HTTP runs at once (a kick) and prints
// one line; a workflow step prints when it runs; editing the module reloads it, the next job runs
// the new handler, and a run started before the edit completes under the new code. Text from a
// job (an error message) is printed escaped; the dashboard's login link works once.
import { type ChildProcess, spawn } from "node:child_process";
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { afterAll, afterEach, beforeAll, expect, inject, it } from "vitest";
import { freePort } from "../../../src/platforms/node/find-redis.js";
import { adapterCase, describeOverAdapters } from "../../helpers/adapters.js";
import { buildCli, type Cli } from "../../helpers/cli.js";
import { useHarness } from "../../helpers/harness.js";
import { tickqSources } from "../../../scripts/tickq-source.mjs";

const SECRET = "dev-test-secret-0123456789";

const appSource = (version: string) => `// written by test/integration/cli/dev.test.ts
const VERSION = "${version}";
export const jobs = {
  hello: async ([name]: [string], ctx: { log: { info(message: string): void } }) => {
    console.log(\`\${VERSION} hello \${name}\`);
    ctx.log.info(\`logged \${name}\`);
  },
  bad: async () => {
    throw new Error("boom\\u001b[2J");
  },
};
type Step = { run<T>(name: string, fn: () => T): Promise<T>; sleep(name: string, duration: string): Promise<void> };
export const workflows = {
  span: {
    run: async (_input: unknown, step: Step) => {
      await step.run("before", () => VERSION);
      await step.sleep("pause", "2s");
      return step.run("after", () => VERSION);
    },
  },
};
`;

// docs/getting-started.md's app.ts, as a user copies it: its "tickq" imports point at the sources.
function gettingStartedApp(): string {
  const page = readFileSync(resolve("docs/getting-started.md"), "utf8");
  const code = /```ts\n(\/\/ app\.ts — [\s\S]*?)```/.exec(page)?.[1];
  if (!code) throw new Error("docs/getting-started.md has no ```ts block opening with // app.ts —");
  const sources: Record<string, string> = tickqSources();
  return code.replace(/from "(tickq(?:\/[\w/-]+)?)"/g, (_, spec: string) => `from ${JSON.stringify(sources[spec])}`);
}

describeOverAdapters([adapterCase("ioredis")], "tickq dev over $name", (a) => {
  const h = useHarness(a, "cli-dev");
  let cli: Cli;
  let dir: string;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    cli = await buildCli({});
  });
  afterAll(() => cli.dispose());
  afterEach(async () => {
    if (child && child.exitCode === null) {
      const exited = new Promise((done) => child!.once("exit", done));
      child.kill("SIGTERM");
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  });

  // Starts `tickq dev --jobs ./app.ts` in a fresh project holding `app`.
  async function startDev(app: string) {
    dir = mkdtempSync(join(tmpdir(), "tickq-dev-"));
    writeFileSync(join(dir, "app.ts"), app);
    const port = await freePort();
    child = spawn(
      process.execPath,
      [cli.path, "dev", "--jobs", "./app.ts", "--port", String(port), "--prefix", h.prefix],
      {
        cwd: dir,
        env: {
          PATH: process.env.PATH ?? "",
          HOME: process.env.HOME ?? "",
          REDIS_URL: inject("redisUrl"),
          TICKQ_SECRET: SECRET,
        },
      },
    );
    const out = output(child);
    const url = `http://127.0.0.1:${port}`;
    const post = (path: string, body: unknown) =>
      fetch(`${url}${path}`, {
        method: "POST",
        headers: { authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
        body: JSON.stringify(body),
      }).then((r) => r.json() as Promise<{ jid?: string; id?: string }>);
    return { out, url, post };
  }

  it("runs what is enqueued, prints each job and step, and reloads the module on edit", async () => {
    const { out, url, post } = await startDev(appSource("v1"));
    await out.waitFor(/tickq dev: http:\/\/127\.0\.0\.1:\d+ serving \.\/app\.ts \(jobs: hello, bad; workflows: span\)/);
    expect(out.text()).toMatch(/^Redis: redis:\/\/\S+, from REDIS_URL$/m);

    const { jid } = await post("/jobs", { name: "hello", args: ["ada"] });
    await out.waitFor(new RegExp(`✓ job hello ${jid} \\d+ ms`));
    expect(out.text()).toContain("v1 hello ada");
    expect(out.text()).toContain(`· [hello ${jid}] logged ada`); // the job's ctx.log line

    await post("/jobs", { name: "bad", args: [] });
    await out.waitFor(/✗ job bad \S+ attempt 1: Error: boom\\x1b\[2J/);
    expect(out.text()).not.toContain("\u001b");

    const { id } = await post("/workflows/span", { input: {} });
    await out.waitFor(new RegExp(`✓ step span/before ${id} \\d+ ms`)); // the run's id, as workflows show takes it
    writeFileSync(join(dir, "app.ts"), appSource("v2"));
    await out.waitFor(/↻ reloaded \.\/app\.ts/);
    await post("/jobs", { name: "hello", args: ["bob"] });
    await out.waitFor(/v2 hello bob/);
    await out.waitFor(/✓ step span\/after /);
    const run = await fetch(`${url}/workflows/${id}`, { headers: { authorization: `Bearer ${SECRET}` } });
    expect(await run.json()).toMatchObject({ status: "completed", output: "v2" });

    const link = /dashboard: (http:\/\/\S+\/dev\/login\/\S+)/.exec(out.text())![1]!;
    const first = await fetch(link, { redirect: "manual" });
    expect(first.status).toBe(303);
    expect(first.headers.get("set-cookie")).toMatch(/^tickq_session=/);
    expect((await fetch(link, { redirect: "manual" })).status).toBe(410);
  });

  it("serves getting-started's app.ts: its jobs, a retried job and its workflow's steps", async () => {
    const { out, url, post } = await startDev(gettingStartedApp());
    await out.waitFor(/serving \.\/app\.ts \(jobs: sendEmail, flakyWebhook; workflows: onboarding\)/);
    const { jid } = await post("/jobs", { name: "sendEmail", args: ["ada@example.com", "Hello"] });
    await out.waitFor(new RegExp(`✓ job sendEmail ${jid} `));
    expect(out.text()).toContain("email to ada@example.com: Hello");
    const hook = await post("/jobs", { name: "flakyWebhook", args: ["https://example.com/hook"] });
    const { id } = await post("/workflows/onboarding", { input: { email: "ada@example.com" } });
    await out.waitFor(/✓ step onboarding\/welcome /);
    await out.waitFor(
      new RegExp(`✗ job flakyWebhook ${hook.jid} attempt 2: Error: 503 from https://example\\.com/hook`),
    );
    await out.waitFor(new RegExp(`✓ job flakyWebhook ${hook.jid} `));
    await out.waitFor(/✓ step onboarding\/tips /);
    expect(out.text()).toContain("email to ada@example.com: Three tips");
    const run = await fetch(`${url}/workflows/${id}`, { headers: { authorization: `Bearer ${SECRET}` } });
    expect(await run.json()).toMatchObject({ status: "completed", output: "sent" });
  });
});

function output(child: ChildProcess) {
  let text = "";
  const waiting = new Set<() => void>();
  const take = (chunk: Buffer) => {
    text += chunk.toString("utf8");
    for (const check of waiting) check();
  };
  child.stdout!.on("data", take);
  child.stderr!.on("data", take);
  return {
    text: () => text,
    waitFor(pattern: RegExp, timeoutMs = 20_000): Promise<void> {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!pattern.test(text)) return;
          waiting.delete(check);
          clearTimeout(timer);
          resolve();
        };
        const timer = setTimeout(() => {
          waiting.delete(check);
          reject(new Error(`no ${pattern} in tickq dev's output:\n${text}`));
        }, timeoutMs);
        waiting.add(check);
        check();
      });
    },
  };
}

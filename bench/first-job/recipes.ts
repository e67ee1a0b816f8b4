// What each example's README tells a new user to type, from its install to its first job: the
// install command, the run command, the environment it reads, and whether the bench then POSTs a
// signup (a server) or the run itself sends one (the Lambda and Netlify local runs).
import { readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";

export interface RunContext {
  redisUrl: string;
  prefix: string;
  /** A free port, for a server that cannot take port 0 (next start). */
  port: number;
  /** The local Upstash-compatible REST server, for the examples that speak REST. */
  rest: { url: string; token: string };
}

export interface Recipe {
  /** Its folder under examples/. */
  name: string;
  /** The README's install command; none where the first run fetches what it needs (Deno). */
  install?: string[];
  /** The README's run command. */
  run: string[];
  env(context: RunContext): Record<string, string>;
  /** A server: once it prints `listening on <url>` (or `ready`), the bench POSTs `{url}{signupPath}`. */
  signupPath?: string;
  /** What a server prints once it serves, when it does not print `listening on <url>`: it serves on `port`. */
  ready?: RegExp;
  /** Points the copy's `tickq` at the packed tarball (`tarball`) or its unpacked folder (`unpacked`). */
  useTarball(dir: string, tarball: string, unpacked: string): void;
}

const SECRET = "first-job-secret-0123456789";

/** package.json's `"tickq": "file:../.."` becomes the tarball, as `npm install ./tickq-0.1.0.tgz` writes it. */
function dependOnTarball(dir: string, tarball: string): void {
  const path = join(dir, "package.json");
  const pkg = JSON.parse(readFileSync(path, "utf8")) as { dependencies: Record<string, string> };
  pkg.dependencies.tickq = `file:${tarball}`;
  writeFileSync(path, `${JSON.stringify(pkg, null, 2)}\n`);
}

/** deno.json maps `tickq/…` to the checkout's dist/: it maps them to the unpacked tarball's instead. */
function mapDenoToUnpacked(dir: string, _tarball: string, unpacked: string): void {
  const path = join(dir, "deno.json");
  writeFileSync(path, readFileSync(path, "utf8").replaceAll('"../../dist/', `"${unpacked}/dist/`));
}

const server = (name: string, run: string[], install = ["npm", "install", "--no-audit", "--no-fund"]): Recipe => ({
  name,
  install,
  run,
  env: ({ redisUrl, prefix }) => ({ REDIS_URL: redisUrl, TICKQ_PREFIX: prefix, TICKQ_SECRET: SECRET, PORT: "0" }),
  signupPath: "/signup",
  useTarball: dependOnTarball,
});

export const recipes: Recipe[] = [
  server("bun", ["bun", "start"], ["bun", "install"]),
  {
    name: "deno",
    run: ["deno", "task", "start"],
    env: ({ redisUrl, prefix }) => ({
      REDIS_URL: redisUrl,
      TICKQ_PREFIX: prefix,
      TICKQ_SECRET: SECRET,
      PORT: "0",
      NO_COLOR: "1",
    }),
    signupPath: "/signup",
    useTarball: mapDenoToUnpacked,
  },
  {
    name: "lambda",
    install: ["npm", "install", "--no-audit", "--no-fund"],
    run: ["npm", "run", "local"],
    env: ({ redisUrl, prefix }) => ({ REDIS_URL: redisUrl, TICKQ_PREFIX: prefix, TICKQ_SECRET: SECRET }),
    useTarball: dependOnTarball,
  },
  {
    name: "netlify",
    install: ["npm", "install", "--no-audit", "--no-fund"],
    run: ["npm", "run", "local"],
    env: ({ rest, prefix }) => ({
      UPSTASH_REDIS_REST_URL: rest.url,
      UPSTASH_REDIS_REST_TOKEN: rest.token,
      TICKQ_PREFIX: prefix,
      TICKQ_SECRET: SECRET,
    }),
    useTarball: dependOnTarball,
  },
  server("express", ["npm", "start"]),
  server("fastify", ["npm", "start"]),
  server("node", ["npm", "start"]),
  {
    name: "nextjs",
    install: ["npm", "install", "--no-audit", "--no-fund"],
    // The README's two steps: next build, then next start (on PORT).
    run: ["sh", "-c", "npm run build && npm start"],
    env: ({ redisUrl, prefix, port }) => ({
      REDIS_URL: redisUrl,
      TICKQ_PREFIX: prefix,
      TICKQ_SECRET: SECRET,
      PORT: String(port),
      NEXT_TELEMETRY_DISABLED: "1",
    }),
    signupPath: "/api/signup",
    ready: /Ready in/,
    useTarball: dependOnTarball,
  },
];

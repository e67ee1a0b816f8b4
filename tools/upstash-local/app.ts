// A local server that speaks the REST protocol of Upstash Redis, over a real
// Redis through ioredis, so an unmodified @upstash/redis client works against
// it: for tests, for CI, and for developing a Worker with no Upstash at hand.
//
//   POST /             body ["SET","k","v"]            → {"result": …} | {"error": …}
//   POST /pipeline     body [["SET","k","v"], …]       → [{"result": …} | {"error": …}, …]
//   POST /multi-exec   body [["INCR","k"], …]          → the same, in one MULTI/EXEC
//   GET|POST /cmd/arg… (path form, for curl)            → {"result": …}
//
// Authorization: Bearer TOKEN (401 otherwise). With `Upstash-Encoding:
// base64` every string in a result is base64, except a whole result that is
// "OK": the client leaves that one undecoded (but decodes every string
// inside an array). Command errors answer 400, as Upstash does.
//
// It runs tickq's scripts and data commands only (allowed.ts), answers only
// requests whose Host is a loopback name (a web page that rebinds its DNS to
// 127.0.0.1 still sends its own name), refuses bodies over 10 MiB as they
// stream in, and wants a token of at least 16 characters.
//
// Every request shares one Redis connection, so commands that would change,
// block or take over that connection (SELECT, MULTI, BLPOP, SUBSCRIBE,
// MONITOR, CLIENT REPLY…: see refused.ts) answer 400 and never run; in a
// pipeline or transaction, one such command refuses the whole request.
import { Hono, type Context } from "hono";
import { bearerAuth } from "hono/bearer-auth";
import { bodyLimit } from "hono/body-limit";
import { HTTPException } from "hono/http-exception";
import type { Redis } from "ioredis";
import { isLoopbackHost } from "./host.js";
import { refusal, refusalIn } from "./refused.js";

export interface UpstashLocalOptions {
  redis: Redis;
  token: string;
  /** Added to every request, to show what HTTP round trips cost. */
  latencyMs?: number;
  /** Called for every request served (the benchmark counts them). */
  onRequest?: () => void;
  /** Accept a token shorter than 16 characters (a throwaway one, on a machine only you use). */
  insecureToken?: boolean;
  /** Run any Lua script, not only tickq's: a token holder can then flush or swap the databases of the Redis behind it. */
  anyScript?: boolean;
}

/** The shortest token accepted without insecureToken. */
export const MIN_TOKEN_LENGTH = 16;

type Reply = null | number | string | Buffer | Reply[];
type Encoded = null | number | string | Encoded[];
type Command = (string | number)[];

const MAX_BODY = 10 * 1024 * 1024;

export function createUpstashLocalApp(options: UpstashLocalOptions): Hono {
  const { redis } = options;
  checkToken(options);
  const app = new Hono();
  app.use("*", async (c, next) => {
    const host = c.req.header("host") ?? "";
    if (!isLoopbackHost(host)) {
      return c.json(
        {
          error: `ERR the local REST server answers only a loopback Host (localhost, 127.0.0.1, [::1]), not ${JSON.stringify(host.slice(0, 100))}`,
        },
        403,
      );
    }
    await next();
  });
  app.use(
    "*",
    bodyLimit({
      maxSize: MAX_BODY,
      onError: (c) => c.json({ error: `ERR the body is over ${MAX_BODY / 1024 / 1024} MiB` }, 413),
    }),
  );
  const unauthorized = (c: Context) => c.json({ error: "Unauthorized" }, 401);
  app.use(
    "*",
    bearerAuth({
      token: options.token,
      noAuthenticationHeader: { message: unauthorized },
      invalidAuthenticationHeader: { message: unauthorized },
      invalidToken: { message: unauthorized },
    }),
  );
  app.use("*", async (_c, next) => {
    options.onRequest?.();
    if (options.latencyMs) await new Promise((r) => setTimeout(r, options.latencyMs));
    await next();
  });

  const encoderFor = (c: Context) => (c.req.header("upstash-encoding")?.toLowerCase() === "base64" ? base64 : utf8);

  app.post("/", async (c) => {
    const command = asCommand(await body(c));
    if (!command) return c.json({ error: "ERR the body must be a JSON array: the command and its arguments" }, 400);
    const refused = refusal(command, options.anyScript);
    if (refused) return c.json({ error: refused }, 400);
    const outcome = await run(redis, command);
    return "error" in outcome ? c.json(outcome, 400) : c.json({ result: encoderFor(c)(outcome.result) });
  });

  app.post("/pipeline", async (c) => {
    const commands = asCommands(await body(c));
    if (!commands) return c.json({ error: "ERR the body must be a JSON array of commands" }, 400);
    const refused = refusalIn(commands, options.anyScript);
    if (refused) return c.json({ error: refused }, 400);
    const encode = encoderFor(c);
    const outcomes = await Promise.all(commands.map((command) => run(redis, command)));
    return c.json(outcomes.map((o) => ("error" in o ? o : { result: encode(o.result) })));
  });

  app.post("/multi-exec", async (c) => {
    const commands = asCommands(await body(c));
    if (!commands) return c.json({ error: "ERR the body must be a JSON array of commands" }, 400);
    const refused = refusalIn(commands, options.anyScript);
    if (refused) return c.json({ error: refused }, 400);
    const encode = encoderFor(c);
    const transaction = redis.multi();
    for (const [name, ...args] of commands) transaction.callBuffer(String(name), ...args);
    try {
      const results = (await transaction.exec()) ?? [];
      return c.json(
        results.map(([error, result]) => (error ? { error: error.message } : { result: encode(result as Reply) })),
      );
    } catch (error) {
      return c.json({ error: (error as Error).message }, 400);
    }
  });

  app.on(["GET", "POST"], "/*", async (c) => {
    const command = pathCommand(c.req.url);
    if (typeof command === "string") return c.json({ error: command }, 400);
    if (command.length === 0) return c.json({ error: "ERR no command in the path" }, 400);
    const refused = refusal(command, options.anyScript);
    if (refused) return c.json({ error: refused }, 400);
    const outcome = await run(redis, command);
    return "error" in outcome ? c.json(outcome, 400) : c.json({ result: encoderFor(c)(outcome.result) });
  });

  app.onError((error, c) =>
    error instanceof HTTPException ? error.getResponse() : c.json({ error: `ERR ${error.message}` }, 500),
  );
  return app;
}

function checkToken({ token, insecureToken }: UpstashLocalOptions): void {
  if (typeof token !== "string" || token === "")
    throw new Error("the token is missing: pass --token with at least 16 characters, or none for a random one");
  if (token.length < MIN_TOKEN_LENGTH && !insecureToken) {
    throw new Error(
      `the token is ${token.length} characters, under ${MIN_TOKEN_LENGTH}: anyone who guesses it runs commands on your Redis. Pass a longer one (openssl rand -hex 16), none for a random one, or --insecure-token to accept it anyway`,
    );
  }
}

async function body(c: Context): Promise<unknown> {
  try {
    return await c.req.json();
  } catch {
    return undefined;
  }
}

/** The command in a path like /set/foo/bar, each segment percent-decoded once; a string when an escape is bad. */
function pathCommand(url: string): Command | string {
  const segments = new URL(url).pathname.split("/").filter(Boolean);
  const command: Command = [];
  for (const segment of segments) {
    try {
      command.push(decodeURIComponent(segment));
    } catch {
      return `ERR bad percent-escape in the path segment "${segment}": each % must start a valid UTF-8 escape (%XX); write a literal % as %25`;
    }
  }
  return command;
}

function asCommand(value: unknown): Command | undefined {
  return Array.isArray(value) && value.length > 0 && value.every((v) => typeof v === "string" || typeof v === "number")
    ? (value as Command)
    : undefined;
}

function asCommands(value: unknown): Command[] | undefined {
  if (!Array.isArray(value)) return undefined;
  const commands = value.map(asCommand);
  return commands.every((c): c is Command => c !== undefined) ? commands : undefined;
}

async function run(redis: Redis, [name, ...args]: Command): Promise<{ result: Reply } | { error: string }> {
  try {
    return { result: (await redis.callBuffer(String(name), ...args)) as Reply };
  } catch (error) {
    return { error: (error as Error).message };
  }
}

function base64(reply: Reply): Encoded {
  const encode = (r: Reply): Encoded => {
    if (r === null || typeof r === "number") return r;
    if (Array.isArray(r)) return r.map(encode);
    return (typeof r === "string" ? Buffer.from(r) : r).toString("base64");
  };
  const isOk =
    typeof reply === "string"
      ? reply === "OK"
      : Buffer.isBuffer(reply) && reply.length === 2 && reply.toString() === "OK";
  return isOk ? "OK" : encode(reply);
}

function utf8(reply: Reply): Encoded {
  if (reply === null || typeof reply === "number") return reply;
  if (Array.isArray(reply)) return reply.map(utf8);
  return typeof reply === "string" ? reply : reply.toString("utf8");
}

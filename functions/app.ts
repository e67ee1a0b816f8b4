// The HTTP face of tickq, shared by every runtime (Node, Cloudflare Workers,
// Vercel): POST|GET /tick, GET /stats, GET /health.
import { Hono, type Context } from "hono";
import { HTTPException } from "hono/http-exception";
import { TickqError, type JobRegistry, type Tickq, type TickOptions } from "../src/index.js";
import { requireSecret } from "./auth.js";

export interface AppOptions {
  tickq: Tickq<JobRegistry>;
  /** Accepted bearer secrets; none means no auth (only with `insecure`). */
  secrets: string[];
  /** Serve without auth: for local development only. */
  insecure?: boolean;
  /** Options of the tick that /tick runs. */
  tick?: TickOptions;
}

/**
 * @example
 * const app = createApp({ tickq, secrets: [env.TICKQ_SECRET] });
 * export default app; // Request → Response
 */
export function createApp(options: AppOptions): Hono {
  const { tickq } = options;
  const app = new Hono();

  app.get("/health", (c) => c.json({ ok: true }));

  const secrets = options.secrets.filter(Boolean);
  if (secrets.length > 0) app.use("*", requireSecret(secrets));
  else if (!options.insecure) throw new Error("createApp needs a secret (TICKQ_SECRET), or insecure: true for local development");

  const runTick = async (c: Context) => c.json(await tickq.tick(options.tick));
  app.post("/tick", runTick);
  app.get("/tick", runTick);
  app.get("/stats", async (c) => c.json(await tickq.stats()));

  app.notFound((c) => c.json({ error: `no route ${c.req.method} ${c.req.path}` }, 404));
  app.onError((error, c) => {
    if (error instanceof HTTPException) return error.getResponse();
    if (error instanceof TickqError && (error.code === "REDIS" || error.code === "REDIS_TIMEOUT")) {
      return c.json({ error: error.message }, 503);
    }
    console.error("tickq: request failed:", error);
    return c.json({ error: "internal error" }, 500);
  });
  return app;
}

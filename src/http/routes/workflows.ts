// The workflow routes (src/workflows/), behind the app's auth like the jobs
// API: POST /workflows starts many runs in one call ({ runs: [{ name, input, id? }], kick? }, all or
// none), POST /workflows/:name starts a run ({ input, id?, kick? }) through the
// request's tickq (c.var.tq), so it kicks as POST /jobs does; POST /events sends
// an event ({ event, match?, data? }), GET /workflows lists runs (?status,
// name, cursor, limit), GET /workflows/:id reads one, POST /workflows/:id/cancel
// cancels it, POST /workflows/:id/retry resumes it, POST /workflows/:id/fork
// ({ fromStep, id?, input? }) forks it, POST /workflows/:name/retry-all?status=failed
// retries a workflow's failed runs. Bad input is tq.workflows' own TickqError: 400, 404, 409.
import { Hono } from "hono/tiny";
import { bodyLimit } from "hono/body-limit";
import { TickqError } from "../../errors.js";
import { bodyTooLarge } from "../errors.js";
import type { JobRegistry, Tickq, WorkflowStatus } from "../../index.js";
import type { TickqEnv } from "../scope.js";

/** The JSON object a POST carries; anything else is a 400. */
async function objectBody(req: { text(): Promise<string> }, what: string): Promise<Record<string, unknown>> {
  let body: unknown;
  try {
    const text = await req.text();
    body = text === "" ? {} : JSON.parse(text);
  } catch {
    throw new TickqError("BAD_ARGS", `${what}: the body is not valid JSON`);
  }
  if (typeof body !== "object" || body === null || Array.isArray(body)) {
    throw new TickqError("BAD_ARGS", `${what}: the body must be a JSON object`);
  }
  return body as Record<string, unknown>;
}

function optionalString(body: Record<string, unknown>, key: string, what: string): string | undefined {
  const value = body[key];
  if (value !== undefined && typeof value !== "string")
    throw new TickqError("BAD_ARGS", `${what}: ${key} must be a string`);
  return value;
}

export function workflowRoutes(tickq: Tickq<JobRegistry>, maxSize: number): Hono<TickqEnv> {
  const workflows = tickq.workflows;
  const app = new Hono<TickqEnv>();
  const limit = bodyLimit({ maxSize, onError: (c) => c.json(bodyTooLarge(maxSize), 413) });
  app.post("/workflows", limit);
  app.post("/workflows/:name", limit);
  app.post("/events", limit);
  app.post("/workflows/:id/fork", limit);
  app.post("/workflows", async (c) => {
    const body = await objectBody(c.req, "POST /workflows");
    if (!Array.isArray(body.runs))
      throw new TickqError("BAD_ARGS", "POST /workflows: runs must be an array of { name, input, id? }");
    const kick = body.kick;
    if (kick !== undefined && typeof kick !== "boolean")
      throw new TickqError("BAD_ARGS", "POST /workflows: kick must be true or false");
    const ids = await c.var.tq.workflows.startBulk(body.runs as { name: string; input: unknown; id?: string }[], {
      ...(kick === undefined ? {} : { kick }),
    });
    return c.json({ ids }, 201);
  });
  app.post("/workflows/:name", async (c) => {
    const name = c.req.param("name");
    const body = await objectBody(c.req, `POST /workflows/${name}`);
    const id = optionalString(body, "id", `POST /workflows/${name}`);
    const kick = body.kick;
    if (kick !== undefined && typeof kick !== "boolean")
      throw new TickqError("BAD_ARGS", `POST /workflows/${name}: kick must be true or false`);
    const runId = await c.var.tq.workflows.start(name, body.input ?? null, {
      ...(id === undefined ? {} : { id }),
      ...(kick === undefined ? {} : { kick }),
    });
    return c.json({ id: runId }, 201);
  });
  app.post("/events", async (c) => {
    const body = await objectBody(c.req, "POST /events");
    const event = body.event;
    if (typeof event !== "string") throw new TickqError("BAD_ARGS", "POST /events: event must be a string");
    const match = optionalString(body, "match", "POST /events");
    const id = optionalString(body, "id", "POST /events");
    const resolved = await workflows.sendEvent(event, {
      match,
      data: body.data ?? null,
      ...(id === undefined ? {} : { id }),
    });
    return c.json({ resolved });
  });
  app.get("/workflows", async (c) => {
    const limit = c.req.query("limit");
    const page = await workflows.list({
      status: c.req.query("status") as WorkflowStatus | undefined,
      name: c.req.query("name"),
      cursor: c.req.query("cursor"),
      limit: limit === undefined ? undefined : Number(limit),
    });
    return c.json(page);
  });
  app.get("/workflows/:id", async (c) => {
    const run = await workflows.get(c.req.param("id"));
    if (!run) throw new TickqError("NOT_FOUND", `no workflow run ${JSON.stringify(c.req.param("id"))}`);
    return c.json(run);
  });
  app.post("/workflows/:id/cancel", async (c) => {
    const id = c.req.param("id");
    return c.json({ id, status: await workflows.cancel(id) });
  });
  app.post("/workflows/:id/retry", async (c) => c.json(await workflows.retry(c.req.param("id"))));
  app.post("/workflows/:id/fork", async (c) => {
    const source = c.req.param("id");
    const what = `POST /workflows/${source}/fork`;
    const body = await objectBody(c.req, what);
    const fromStep = optionalString(body, "fromStep", what);
    if (fromStep === undefined) throw new TickqError("BAD_ARGS", `${what}: fromStep (a step's name) is required`);
    const id = optionalString(body, "id", what);
    const forked = await c.var.tq.workflows.fork(source, {
      fromStep,
      ...(id === undefined ? {} : { id }),
      ...(body.input === undefined ? {} : { input: body.input }),
    });
    return c.json({ id: forked }, 201);
  });
  app.post("/workflows/:name/retry-all", async (c) => {
    const status = c.req.query("status") ?? "failed";
    if (status !== "failed") {
      throw new TickqError(
        "BAD_STATE",
        `POST /workflows/:name/retry-all: status must be failed, got ${JSON.stringify(status)}`,
      );
    }
    return c.json(await workflows.retryAll({ name: c.req.param("name"), status }));
  });
  return app;
}

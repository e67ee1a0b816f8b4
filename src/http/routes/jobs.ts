// The jobs API over HTTP (POST /jobs, enqueueing, lives in app.ts):
//   GET    /jobs?state=&queue=&name=&cursor=&limit=&order=   one page: { jobs, cursor }
//   GET    /jobs/:jid                                        where it is now (404 if nowhere)
//   GET    /jobs/:jid/result                                 its state, and its result or error once it ended
//   POST   /jobs/:jid/retry, POST /jobs/:jid/run             to its queue now
//   POST   /jobs/:jid/cancel                                 { jid, state: cancelled | cancelling, from, heard? }
//   POST   /ordered/:name/:id/cancel                         an ordered id (URL-encoded): { name, id, state, from, payloads, heard?, jids }
//   DELETE /jobs/:jid
//   POST   /jobs/retry-all?state=&name=&queue=               { retried }
//   DELETE /jobs?state=&name=&queue=                         { deleted }
// Errors are TickqErrors, answered by app.ts: 404 NOT_FOUND, 400 a bad
// state, cursor or argument, 409 a job in process or in the wrong state.
import { Hono } from "hono/tiny";
import { TickqError } from "../../errors.js";
import type { JobInfo, JobRegistry, JobState, Tickq } from "../../index.js";

/** A listed job without its raw text (GET /jobs/:jid has it). */
const brief = ({ raw: _raw, ...rest }: JobInfo) => rest;

function queryState(value: string | undefined): JobState {
  if (value === undefined || value === "")
    throw new TickqError(
      "BAD_STATE",
      "state is required: queued, scheduled, retry, dead, running, succeeded, cancelled or expired",
    );
  return value as JobState;
}

function queryLimit(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value))
    throw new TickqError("BAD_ARGS", `limit must be a whole number, got ${JSON.stringify(value)}`);
  return Number(value);
}

function queryOrder(value: string | undefined): "oldest" | "newest" | undefined {
  if (value === undefined) return undefined;
  if (value !== "oldest" && value !== "newest")
    throw new TickqError("BAD_ARGS", `order must be oldest or newest, got ${JSON.stringify(value)}`);
  return value;
}

export function jobRoutes(tickq: Tickq<JobRegistry>): Hono {
  const app = new Hono();

  app.get("/jobs", async (c) => {
    const q = c.req.query();
    const page = await tickq.jobs.list(queryState(q.state), {
      queue: q.queue,
      name: q.name,
      cursor: q.cursor,
      limit: queryLimit(q.limit),
      order: queryOrder(q.order),
    });
    return c.json({ jobs: page.jobs.map(brief), cursor: page.cursor });
  });

  app.get("/jobs/:jid", async (c) => {
    const found = await tickq.jobs.find(c.req.param("jid"));
    if (!found) throw new TickqError("NOT_FOUND", `no job with jid ${JSON.stringify(c.req.param("jid"))}`);
    return c.json(found);
  });

  app.get("/jobs/:jid/result", async (c) => c.json(await tickq.jobs.result(c.req.param("jid"))));

  app.post("/jobs/retry-all", async (c) => {
    const q = c.req.query();
    const state = queryState(q.state) as "retry" | "dead" | "scheduled";
    return c.json({ retried: await tickq.jobs.retryAll(state, { name: q.name, queue: q.queue }) });
  });

  app.delete("/jobs", async (c) => {
    const q = c.req.query();
    const state = queryState(q.state) as Exclude<JobState, "running">;
    return c.json({ deleted: await tickq.jobs.deleteAll(state, { name: q.name, queue: q.queue }) });
  });

  app.post("/jobs/:jid/retry", async (c) => c.json(brief(await tickq.jobs.retry(c.req.param("jid")))));
  app.post("/jobs/:jid/run", async (c) => c.json(brief(await tickq.jobs.runNow(c.req.param("jid")))));
  app.post("/jobs/:jid/cancel", async (c) => c.json(await tickq.jobs.cancel(c.req.param("jid"))));
  app.post("/ordered/:name/:id/cancel", async (c) =>
    c.json(await tickq.jobs.cancelOrdered(c.req.param("name"), c.req.param("id"))),
  );
  app.delete("/jobs/:jid", async (c) => c.json(brief(await tickq.jobs.delete(c.req.param("jid")))));

  return app;
}

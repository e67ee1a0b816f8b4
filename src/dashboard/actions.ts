// The dashboard's state changes, each a POST from one of its forms (the
// guard has checked the session, the origin and the CSRF token), each one
// jobs API call. The answer is a redirect back to the page the form was on,
// with what happened in ?done=.
import type { Context, Hono } from "hono";
import { TickqError } from "../errors.js";
import type { DashboardEnv, DashboardScope } from "../http/dashboard-slot.js";

type Ctx = Context<DashboardEnv>;

/** Rows one bulk POST takes: a page of a list (25) with room to spare. */
const MAX_SELECTED = 100;

/** The form's `back` when it is a page of this dashboard (never another site), else the overview. */
async function backTo(c: Ctx, done: string) {
  const form = await c.req.parseBody();
  const base = c.var.base;
  // Resolved first ("..", "//host", "\\" are gone or visible), then held to the dashboard's own paths.
  let url = new URL(typeof form.back === "string" ? form.back : base, "http://dashboard.invalid");
  const inside = url.host === "dashboard.invalid" && (url.pathname === base || url.pathname.startsWith(`${base}/`));
  if (!inside) url = new URL(base, "http://dashboard.invalid");
  url.searchParams.set("done", done);
  return c.redirect(url.pathname + url.search, 303);
}

const formName = async (c: Ctx) => {
  const name = (await c.req.parseBody()).name;
  return typeof name === "string" && name !== "" ? name : undefined;
};

export function actionRoutes(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  const { jobs, queues } = scope.tickq;
  app.post("/jobs/:jid/retry", async (c) => {
    const job = await jobs.retry(c.req.param("jid"));
    return backTo(c, `Job ${job.jid} is back in queue ${job.queue}.`);
  });
  app.post("/jobs/:jid/delete", async (c) => {
    const job = await jobs.delete(c.req.param("jid"));
    return backTo(c, `Job ${job.jid} deleted.`);
  });
  app.post("/jobs/:jid/cancel", async (c) => {
    const done = await jobs.cancel(c.req.param("jid"));
    return backTo(
      c,
      done.state === "cancelled"
        ? `Job ${done.jid} cancelled.`
        : `Job ${done.jid} is being cancelled: its tick ${done.heard ? "stopped it" : "has not confirmed yet"}; it ends cancelled.`,
    );
  });
  // The rows ticked on a jobs page (job-table.ts): one jobs API call each, at most a page's worth; a job
  // that cannot take the action (it moved meanwhile) is counted and named, the others go on.
  app.post("/jobs/bulk", async (c) => {
    const form = await c.req.parseBody({ all: true });
    const act = form.do;
    if (act !== "retry" && act !== "delete" && act !== "cancel")
      throw new TickqError("BAD_ARGS", "pick Retry, Cancel or Delete selected");
    const jids = [form.jid ?? []].flat().filter((j): j is string => typeof j === "string");
    if (jids.length === 0) throw new TickqError("BAD_ARGS", "no job ticked: tick the rows to act on first");
    if (jids.length > MAX_SELECTED)
      throw new TickqError("BAD_ARGS", `at most ${MAX_SELECTED} jobs at once, got ${jids.length}`);
    const refused: string[] = [];
    for (const jid of jids) await jobs[act](jid).catch((e: Error) => refused.push(`${jid}: ${e.message}`));
    const done = `${jids.length - refused.length} job(s): ${act === "retry" ? "retried" : act === "delete" ? "deleted" : "cancelled"}`;
    return backTo(c, refused.length ? `${done}; ${refused.length} could not be (${refused[0]}).` : `${done}.`);
  });
  app.post("/ordered/:name/cancel", async (c) => {
    const id = (await c.req.parseBody()).id;
    const done = await jobs.cancelOrdered(c.req.param("name"), typeof id === "string" ? id : "");
    const what = `${done.name} id ${JSON.stringify(done.id)}`;
    return backTo(
      c,
      done.state === "cancelled"
        ? `Ordered ${what} cancelled (${done.payloads} payload(s) taken).`
        : `Ordered ${what} is being cancelled: its tick ${done.heard ? "stopped the run" : "has not confirmed yet"}; it ends cancelled.`,
    );
  });
  app.post("/:state{scheduled|retry|dead}/retry-all", async (c) => {
    const n = await jobs.retryAll(c.req.param("state") as "scheduled" | "retry" | "dead", { name: await formName(c) });
    return backTo(c, `${n} job(s) back in their queues.`);
  });
  app.post("/:state{scheduled|retry|dead|succeeded|cancelled|expired}/delete-all", async (c) => {
    const state = c.req.param("state") as "scheduled" | "retry" | "dead" | "succeeded" | "cancelled" | "expired";
    const n = await jobs.deleteAll(state, {
      name: await formName(c),
    });
    return backTo(c, `${n} job(s) deleted.`);
  });
  app.post("/queues/:name/pause", async (c) => {
    await queues.pause(c.req.param("name"));
    return backTo(c, `Queue ${c.req.param("name")} paused: ticks skip it until it is resumed.`);
  });
  app.post("/workflows/:id/cancel", async (c) => {
    const id = c.req.param("id");
    const status = await scope.tickq.workflows.cancel(id);
    return backTo(
      c,
      status === "cancelled"
        ? `Run ${id} cancelled: no further step starts.`
        : status === "cancelling"
          ? `Run ${id} cancelled; its tick has not yet said it heard: a step may start until it does, or its lease ends.`
          : `Run ${id} had already ${status}.`,
    );
  });
  app.post("/workflows/:id/retry", async (c) => {
    const { runId, status } = await scope.tickq.workflows.retry(c.req.param("id"));
    return backTo(
      c,
      status === "running"
        ? `Run ${runId} resumed at the step that ended it.`
        : `Run ${runId} is ${status}: retried already.`,
    );
  });
  app.post("/workflows/:id/fork", async (c) => {
    const id = c.req.param("id");
    const fromStep = (await c.req.parseBody()).fromStep;
    const forked = await scope.tickq.workflows.fork(id, { fromStep: typeof fromStep === "string" ? fromStep : "" });
    return backTo(c, `Run ${forked} started from step ${String(fromStep)} of run ${id}.`);
  });
  app.post("/schedules/:name/:act{pause|resume}", async (c) => {
    const name = c.req.param("name");
    const pause = c.req.param("act") === "pause";
    await scope.tickq.schedules[pause ? "pause" : "resume"](name);
    return backTo(
      c,
      pause ? `${name} paused: its slots pass and enqueue nothing.` : `${name} resumed from its next slot.`,
    );
  });
  app.post("/schedules/:name/run-now", async (c) => {
    const jid = await scope.tickq.schedules.runNow(c.req.param("name"));
    return backTo(c, `${c.req.param("name")} enqueued now: job ${jid}.`);
  });
  app.post("/queues/:name/resume", async (c) => {
    await queues.resume(c.req.param("name"));
    return backTo(c, `Queue ${c.req.param("name")} resumed.`);
  });
}

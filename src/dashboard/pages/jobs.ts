// GET /scheduled, /retry, /dead, /running, and the history: /succeeded,
// /cancelled, /expired: one page of the jobs in that state (?name= to search
// by job name, ?cursor= for the next page), with retry (but for history) and
// delete for each, or for all that match.
import type { Hono } from "hono";
import { html } from "hono/html";
import { jobTable, nameSearch } from "../job-table.js";
import { page, postButton } from "../layout.js";
import type { DashboardEnv, DashboardScope } from "../../http/dashboard-slot.js";

const TITLES = {
  scheduled: "Scheduled",
  retry: "Retry",
  dead: "Dead",
  running: "In flight",
  succeeded: "Succeeded",
  cancelled: "Cancelled",
  expired: "Expired",
} as const;
const WHEN = {
  scheduled: "due",
  retry: "next try",
  dead: "died",
  running: "held by",
  succeeded: "finished",
  cancelled: "cancelled",
  expired: "expired",
} as const;
/** Jobs kept as history: deleted, never retried from here. */
const HISTORY = new Set(["succeeded", "cancelled", "expired"]);
export const PAGE_SIZE = 25;

export function jobsRoutes(app: Hono<DashboardEnv>, scope: DashboardScope): void {
  app.get("/:state{scheduled|retry|dead|running|succeeded|cancelled|expired}", async (c) => {
    const state = c.req.param("state") as keyof typeof TITLES;
    const name = c.req.query("name") || undefined;
    const found = await scope.tickq.jobs.list(state, { name, cursor: c.req.query("cursor") || null, limit: PAGE_SIZE });
    const fields = name ? { name } : undefined;
    const what = name ? `every ${state} job named ${name}` : `every ${state} job`;
    const deleteAll = () =>
      postButton(c, `/${state}/delete-all`, name ? `Delete all named ${name}` : "Delete all", {
        fields,
        danger: true,
        confirm: `Delete ${what}?`,
      });
    const bulk =
      state === "running"
        ? ""
        : HISTORY.has(state)
          ? deleteAll()
          : html`${postButton(c, `/${state}/retry-all`, name ? `Retry all named ${name}` : "Retry all", { fields, confirm: `Retry ${what}?` })} ${postButton(
              c,
              `/${state}/delete-all`,
              name ? `Delete all named ${name}` : "Delete all",
              { fields, danger: true, confirm: `Delete ${what}?` },
            )}`;
    return page(
      c,
      `/${state}`,
      TITLES[state],
      html`${nameSearch(c)}<p class="bar">${bulk}</p>${jobTable(c, found, {
        when: WHEN[state],
        errors: state !== "scheduled" && !HISTORY.has(state),
        results: state === "succeeded",
      })}`,
    );
  });
}

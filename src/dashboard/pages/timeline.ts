// The run page's time axis: each step a row, its spans placed by time from
// the run's start to its end (or now, or the furthest wake-up): the step's
// last try as it ran, the wait for its next try, a sleep until its end, a
// wait until its timeout (or now). A step's parked time begins where the
// step before it ended (the code reached it then); tries before the last
// keep no times, so the row says how many there were. Plain HTML and CSS,
// no script: a span's title says what it is.
import { html } from "hono/html";
import type { WorkflowRun } from "../../workflows/types.js";
import { type Html, number } from "../layout.js";

/** One span of a step's row: its kind, start and end (epoch ms), and what it was. */
export interface TimelineSpan {
  kind: "ran" | "retry" | "sleep" | "wait";
  from: number;
  to: number;
  title: string;
}

const ms = (n: number) => (n < 10_000 ? `${number(Math.round(n))} ms` : `${number(Math.round(n / 100) / 10)} s`);

/** Each step's spans, in step order, and the axis' start and end. */
export function timelineSpans(run: WorkflowRun, nowMs: number) {
  let reached = run.createdAt;
  let end = run.endedAt ?? Math.max(nowMs, run.updatedAt);
  const rows = run.steps.map((s) => {
    const spans: TimelineSpan[] = [];
    const add = (kind: TimelineSpan["kind"], from: number, to: number, title: string) => {
      spans.push({ kind, from, to: Math.max(from, to), title });
      end = Math.max(end, to);
    };
    if (s.startedAt !== undefined && s.endedAt !== undefined)
      add("ran", s.startedAt, s.endedAt, `${s.name}: try ${s.attempts}, ${s.status}, ${ms(s.endedAt - s.startedAt)}`);
    if (s.status === "failed" && s.nextTryAt !== undefined && s.endedAt !== undefined)
      add("retry", s.endedAt, s.nextTryAt, `${s.name}: try ${s.attempts + 1} in ${ms(s.nextTryAt - s.endedAt)}`);
    if (s.status === "sleeping" && s.wakeAt !== undefined)
      add("sleep", reached, s.wakeAt, `${s.name}: sleeps ${ms(s.wakeAt - reached)}`);
    if (s.status === "waiting") {
      const to = s.wakeAt ?? Math.max(nowMs, reached);
      add(
        "wait",
        reached,
        to,
        `${s.name}: waits for ${s.event ?? "an event"}${s.wakeAt ? `, timeout in ${ms(to - reached)}` : ""}`,
      );
    }
    // A sleep or a wait that ended ran no code: parked from where the code reached it.
    if (s.status === "completed" && s.startedAt === undefined && s.endedAt !== undefined)
      add("sleep", reached, s.endedAt, `${s.name}: parked ${ms(s.endedAt - reached)}`);
    reached = Math.max(reached, s.endedAt ?? reached);
    return { name: s.name, attempts: s.attempts, spans };
  });
  return { start: run.createdAt, end, rows };
}

export function timeline(run: WorkflowRun, nowMs: number): Html {
  const { start, end, rows } = timelineSpans(run, nowMs);
  const width = Math.max(1, end - start);
  const at = (t: number) => ((Math.min(Math.max(t, start), end) - start) * 100) / width;
  return html`<div class="tl" aria-label="Steps on a time axis">${rows.map(
    (r) =>
      html`<div class="tl-r"><span>${r.name}${r.attempts > 1 ? ` ×${r.attempts}` : ""}</span><i>${r.spans.map(
        (s) =>
          html`<b class="tl-${s.kind}" style="left:${at(s.from).toFixed(2)}%;width:${Math.max(0.4, at(s.to) - at(s.from)).toFixed(2)}%" title="${s.title}"></b>`,
      )}</i></div>`,
  )}<div class="tl-r tl-a"><span></span><i><em>0</em><em>${ms(end - start)}</em></i></div></div>`;
}

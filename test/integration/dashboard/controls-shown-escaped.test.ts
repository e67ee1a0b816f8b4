// Text from jobs on the dashboard, in a real headless Chromium: a bidi override (U+202E), an
// isolate, C0 (ESC) and C1 controls in a job's jid, args, error message and result, and in a
// workflow run's id, step name and step error, show on the job and run pages (and the lists
// that link to them) as visible escapes (`\u202e`), never as the characters themselves: what
// the page reads is what the job holds. A jid keeps its characters where the page posts it
// back (the row's checkbox), so the bulk actions still find the job.
import { expect, it } from "vitest";
import { dashboard } from "../../../src/dashboard/index.js";
import { describeWithChromium } from "./chromium.js";
import { useDashboardServer } from "./use-dashboard-server.js";

const SECRET = "controls-s3cret-for-tests";
const RLO = "\u202e";
const FSI = "\u2068";
const ESC = "\u001b";
const NEL = "\u0085";
/** What must never reach a reader's eyes raw (src/dashboard/visible.ts). */
const UNSAFE = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/;

const JID = `invoice${RLO}fdp.exe`;
const RUN_ID = `run${RLO}1`;

describeWithChromium("text from jobs on the dashboard, in headless Chromium", () => {
  const jobs = {
    charge: {
      retry: false,
      perform: (args: [string]) => {
        throw new Error(`card ${args[0]} declined${ESC}[2J${NEL}by ${RLO}knab`);
      },
    },
    render: (_args: [string]) => ({ title: `${FSI}report${RLO}fdp.exe` }),
  };
  const w = useDashboardServer({
    label: "dash-controls",
    secret: SECRET,
    server: {
      jobs,
      keepCompleted: { count: 10 },
      workflows: {
        pay: {
          retry: 0,
          run: async (_input: { note: string }, step) => {
            await step.run(`look${RLO}up`, () => "found");
            await step.run("charge", () => {
              throw new Error(`gateway ${ESC}]0;owned${ESC}\\ said ${RLO}on`);
            });
          },
        },
      },
      dashboard: dashboard({ refreshMs: 60_000 }),
    },
    async seed({ tq }) {
      await tq.enqueue("charge", [`4242${RLO}1111`], { jid: JID });
      await tq.enqueue("render", [`${RLO}monthly`], { jid: "render-1" });
      await tq.workflows.start("pay", { note: `${RLO}note` }, { id: RUN_ID });
      for (let i = 0; i < 5; i++) await tq.tick({ budgetMs: 5_000 });
      expect((await tq.workflows.get(RUN_ID))?.status).toBe("failed");
    },
  });

  /** The page's text as a reader gets it, and its title, with no raw control or bidi character. */
  async function readable(path: string): Promise<string> {
    await w.page.goto(`${w.server.url}/dashboard${path}`);
    const text = await w.page.locator("body").innerText();
    const title = await w.page.title();
    expect(UNSAFE.exec(text), `a raw character on ${path}`).toBeNull();
    expect(UNSAFE.exec(title), `a raw character in ${path}'s title`).toBeNull();
    return text;
  }

  it("shows a dead job's jid, args and error message escaped on its page", async () => {
    const text = await readable(`/jobs/${encodeURIComponent(JID)}`);
    expect(await w.page.title()).toContain("invoice\\u202efdp.exe");
    expect(await w.page.locator("dd.err").innerText()).toBe(
      "Error: card 4242\\u202e1111 declined\\u001b[2J\\u0085by \\u202eknab",
    );
    expect(text).toContain('"4242\\u202e1111"'); // the args' JSON
    expect(await w.page.locator("dd.err .esc").count()).toBe(4); // each one marked
  });

  it("shows a succeeded job's result and args escaped", async () => {
    const text = await readable("/jobs/render-1");
    expect(text).toContain('"title": "\\u2068report\\u202efdp.exe"');
    expect(text).toContain('"\\u202emonthly"');
  });

  it("escapes the lists too, and keeps the jid a row posts back", async () => {
    const text = await readable("/dead");
    expect(text).toContain("invoice\\u202efdp.exe");
    const row = w.page.locator("tr[data-jid]").first();
    expect(await row.getAttribute("data-jid")).toBe(JID);
    expect(await row.locator("input[type=checkbox]").getAttribute("value")).toBe(JID);
  });

  it("shows a run's id, step names and step error escaped on its page and in the runs list", async () => {
    const text = await readable(`/workflows/${encodeURIComponent(RUN_ID)}`);
    expect(text).toContain("run\\u202e1");
    expect(text).toContain("look\\u202eup");
    expect(text).toContain("gateway \\u001b]0;owned\\u001b\\ said \\u202eon");
    expect(text).toContain('"\\u202enote"');
    expect(await readable("/workflows")).toContain("run\\u202e1");
  });
});

// The workflow routes answer a body that is not a JSON object, or a field of
// the wrong type, with 400 and a reason, never a 500; nothing is started and
// no event is sent. An unknown workflow is a 400 too.
import { describe, expect, it } from "vitest";
import { createApp } from "../../../src/http/app.js";
import { adapterCases } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";

const SECRET = "workflow-bodies-secret";
const raw = (body: string) => ({
  method: "POST",
  body,
  headers: { Authorization: `Bearer ${SECRET}`, "content-type": "application/json" },
});

describe.each(adapterCases)("workflow routes and bad bodies over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "wf-http-bad");

  it("answers 400 to malformed or mistyped bodies and starts nothing", async () => {
    const tq = h.make(
      {},
      { workflows: { w: { run: async (_: null, step) => step.waitForEvent("e", { event: "e" }) } } },
    );
    const app = createApp({ tickq: tq, secrets: [SECRET] });
    const bad: [string, string][] = [
      ["/workflows/w", "{"],
      ["/workflows/w", "[1]"],
      ["/workflows/w", '"text"'],
      ["/workflows/w", "null"],
      ["/workflows/w", '{"id": ""}'],
      ["/workflows/w", '{"id": {"$ne": 1}}'],
      ["/workflows/nope", "{}"],
      ["/workflows/__proto__", "{}"],
      ["/workflows/constructor", "{}"],
      ["/events", "{"],
      ["/events", "[]"],
      ["/events", '{"event": ""}'],
      ["/events", '{"event": 1}'],
      ["/events", '{"event": "e", "match": 5}'],
      ["/events", '{"event": "e", "data": 1e999}'],
    ];
    for (const [path, body] of bad) {
      const answer = await app.request(path, raw(body));
      expect([path, body, answer.status]).toEqual([path, body, 400]);
      expect(((await answer.json()) as { error: string }).error).toEqual(expect.any(String));
    }
    expect((await tq.workflows.list()).runs).toEqual([]);
  });
});

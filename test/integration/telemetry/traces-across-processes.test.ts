import { execFile } from "node:child_process";
import { promisify } from "node:util";
import { beforeEach, expect, it } from "vitest";
import { adapterCases, describeOverAdapters } from "../../helpers/adapters.js";
import { useHarness } from "../../helpers/harness.js";
import { otel, registerOtel } from "../../helpers/otel.js";

const world = registerOtel();
const run = promisify(execFile);

interface ChildSpans {
  succeeded: number;
  spans: { name: string; traceId: string; parentSpanId?: string; jid: string }[];
}

describeOverAdapters(adapterCases, "traces across processes over $name", (adapterCase) => {
  const h = useHarness(adapterCase, "traces-proc");
  beforeEach(() => world.exporter.reset());

  it("a job ticked in another process runs in the trace of its enqueue, as a child of the send span", async () => {
    const tq = h.make({ email: () => {} }, { telemetry: { otel } });
    const jid = await tq.enqueue("email", ["a@b.c"]);
    const send = world
      .spans()
      .find((s) => s.kind === 3)!
      .spanContext();
    const { stdout } = await run(process.execPath, ["--import", "tsx", "test/fixtures/traced-child.ts"], {
      env: {
        ...process.env,
        ADAPTER: adapterCase.name,
        PREFIX: h.prefix,
        ENDPOINTS: JSON.stringify(adapterCase.endpoints()),
      },
      timeout: 60_000,
    });
    const child = JSON.parse(stdout) as ChildSpans;
    expect(child.succeeded).toBe(1);
    expect(child.spans).toEqual([{ name: "process default", traceId: send.traceId, parentSpanId: send.spanId, jid }]);
  });
});

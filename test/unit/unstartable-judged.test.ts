// How stats() judges what ticks recorded they could not start
// (lib/tick/record-unstartable.lua): only what ticks met lately, only when no
// tick that served the queue lately had budget enough, and names printed
// with their control characters escaped.
import { describe, expect, it } from "vitest";
import { readUnstartable, unstartableWarning } from "../../src/tick/unstartable-warnings.js";

const NOW = 10_000_000;
const at = (agoMs: number) => NOW - agoMs;

describe("jobs no tick can start, as stats() reads them", () => {
  it("names a timeout above every recent budget, and an unknown name, with their counts", () => {
    const jobs = readUnstartable({
      nowMs: NOW,
      records: [
        { name: "report", record: `${at(1_000)} 3 timeout 4000 900 default` },
        { name: "welcome", record: `${at(2_000)} 2 unknown 0 10000 mail` },
      ],
      budgets: [{ queue: "default", record: `900 ${at(1_000)}` }],
    });
    expect(jobs).toEqual([
      {
        name: "report",
        reason: "timeout",
        queue: "default",
        count: 3,
        timeoutMs: 4000,
        budgetMs: 900,
        lastSeenAt: at(1_000),
      },
      { name: "welcome", reason: "unknown", queue: "mail", count: 2, lastSeenAt: at(2_000) },
    ]);
    expect(jobs.map(unstartableWarning)).toEqual([
      expect.stringMatching(
        /^3 job\(s\) of "report" in queue "default" cannot start: its timeoutMs 4000 .*\(at most 900 ms\)/,
      ),
      expect.stringMatching(
        /^2 job\(s\) of "welcome" in queue "mail" were fetched by a tick that does not declare "welcome"/,
      ),
    ]);
  });

  it("says nothing of a job a recent tick had budget enough for, nor of what no tick met for 5 minutes", () => {
    const records = [{ name: "report", record: `${at(1_000)} 3 timeout 4000 900 default` }];
    expect(
      readUnstartable({ nowMs: NOW, records, budgets: [{ queue: "default", record: `5000 ${at(60_000)}` }] }),
    ).toEqual([]);
    // A large budget recorded too long ago no longer counts.
    expect(
      readUnstartable({ nowMs: NOW, records, budgets: [{ queue: "default", record: `5000 ${at(300_000)}` }] }),
    ).toHaveLength(1);
    expect(
      readUnstartable({
        nowMs: NOW,
        records: [{ name: "old", record: `${at(300_000)} 1 unknown 0 900 q` }],
        budgets: [],
      }),
    ).toEqual([]);
    // A record it cannot read (a later release's) is left out, not misread.
    expect(readUnstartable({ nowMs: NOW, records: [{ name: "x", record: "v2 something else" }], budgets: [] })).toEqual(
      [],
    );
  });

  it("escapes control characters of a name in the warning", () => {
    const [job] = readUnstartable({
      nowMs: NOW,
      records: [{ name: "bad\u001b]0;pwned\u0007\u009b\u007f", record: `${at(1)} 1 unknown 0 900 default` }],
      budgets: [],
    });
    const warning = unstartableWarning(job!);
    expect(warning).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(warning).toContain("bad\\u001b]0;pwned\\u0007\\u009b\\u007f");
  });
});

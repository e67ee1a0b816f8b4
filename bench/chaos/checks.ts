// The chaos judge's rows. Each row of the printed table is a check: its
// label, the figure it shows and, for a figure that guards a promise, the
// problem (in words) when the figure breaks it. `npm run chaos` and the
// tests read the same rows, so what the table shows is what fails a run.
//
// A phase adds a row by adding a check to its list; a figure a phase does
// not measure is `undefined`, shown as "—" and never a problem. A new phase
// turns its result into a column with its own list (`columnOf`), and the
// table lines its rows up with the others' by label.
import type { AdapterName } from "./connect.js";
import { FAULT_KINDS, faultKindsOver, type FaultCounts } from "./faults.js";

export type Cell = string | number | undefined;

export interface Check<R> {
  label: string;
  value: (r: R) => Cell;
  /** The problem when `r` breaks the promise this row guards; undefined when it holds. Rows without it are only reported. */
  problem?: (r: R) => string | undefined;
}

/** One phase's figures and problems, ready for the table. */
export interface Column {
  name: string;
  rows: [label: string, cell: Cell][];
  problems: string[];
  /** The last lines its workers wrote to stderr, printed when it failed. */
  workerStderr?: string[];
}

export function problemsOf<R>(checks: readonly Check<R>[], r: R): string[] {
  return checks.flatMap((c) => {
    if (!c.problem || c.value(r) === undefined) return [];
    const problem = c.problem(r);
    return problem === undefined ? [] : [problem];
  });
}

export function columnOf<R extends { problems: string[]; workerStderr?: string[] }>(
  name: string,
  checks: readonly Check<R>[],
  r: R,
): Column {
  return {
    name,
    rows: checks.map((c) => [c.label, c.value(r)]),
    problems: r.problems,
    ...(r.workerStderr ? { workerStderr: r.workerStderr } : {}),
  };
}

/** A figure that must be 0; `detail` lists what it counts (the first ten are printed). */
export function mustBeZero<R>(label: string, get: (r: R) => number | undefined, detail?: (r: R) => string[]): Check<R> {
  return {
    label: `${label} (must be 0)`,
    value: get,
    problem: (r) => {
      const n = get(r) ?? 0;
      if (n === 0) return undefined;
      const items = detail?.(r) ?? [];
      return `${label}: ${n}${items.length ? ` — ${items.slice(0, 10).join("; ")}` : ""}`;
    },
  };
}

/** A figure that must stay at or under `bound` (its unit in the label). */
export function atMost<R>(label: string, get: (r: R) => number | undefined, bound: number): Check<R> {
  return {
    label: `${label} (at most ${bound})`,
    value: get,
    problem: (r) => {
      const n = get(r);
      return n === undefined || n <= bound ? undefined : `${label}: ${n}, over its bound of ${bound}`;
    },
  };
}

/** A row "a / b" whose two figures must be equal. */
export function mustMatch<R>(
  label: string,
  a: (r: R) => number | undefined,
  b: (r: R) => number | undefined,
  why: string,
): Check<R> {
  return {
    label,
    value: (r) => (a(r) === undefined || b(r) === undefined ? undefined : `${a(r)} / ${b(r)}`),
    problem: (r) => (a(r) === b(r) ? undefined : `${label}: ${a(r)} ≠ ${b(r)} (${why})`),
  };
}

/** Rows for the faults injected, one per kind: each kind offered must have been injected `faultsAsked` times (the injector gives up at its time limit). */
export function faultChecks<
  R extends { adapter: AdapterName; faults: FaultCounts; faultsAsked: number },
>(): Check<R>[] {
  return [
    {
      label: "faults asked of each kind",
      value: (r) => r.faultsAsked,
      problem: (r) => {
        const missing = faultKindsOver(r.adapter).filter((k) => r.faults[k] === undefined);
        return missing.length ? `faults never tried over ${r.adapter}: ${missing.join(", ")}` : undefined;
      },
    },
    ...FAULT_KINDS.map(
      (kind): Check<R> => ({
        label: `faults: ${kind}`,
        value: (r) => r.faults[kind],
        problem: (r) =>
          r.faults[kind]! >= r.faultsAsked
            ? undefined
            : `faults: ${kind} injected ${r.faults[kind]} times of the ${r.faultsAsked} asked (the injector ran out of time)`,
      }),
    ),
    { label: "faults: total", value: (r) => Object.values(r.faults).reduce((a, b) => a + (b ?? 0), 0) },
  ];
}

/** One column per phase, one row per label (in the order first seen), and a last row with each phase's verdict. */
export function renderTable(columns: Column[]): string {
  const labels: string[] = [];
  for (const column of columns) for (const [label] of column.rows) if (!labels.includes(label)) labels.push(label);
  const cell = (column: Column, label: string) => {
    const value = column.rows.find(([l]) => l === label)?.[1];
    return value === undefined ? "—" : String(value);
  };
  const cells = [
    ...labels.map((label) => [label, ...columns.map((c) => cell(c, label))]),
    ["verdict", ...columns.map((c) => (c.problems.length ? "FAILED" : "ok"))],
  ];
  const header = ["", ...columns.map((c) => c.name)];
  const widths = header.map((_, i) => Math.max(...[header, ...cells].map((row) => row[i]!.length)));
  const line = (row: string[]) =>
    row.map((c, i) => (i === 0 ? c.padEnd(widths[i]!) : c.padStart(widths[i]!))).join("  ");
  return [line(header), widths.map((w) => "-".repeat(w)).join("  "), ...cells.map(line)].join("\n");
}

// Reads a Prometheus text exposition with a real parser of the format
// (parse-prometheus-text-format, prom2json's output shape), into lookups.
// @ts-expect-error: the package ships no types; its output is typed below.
import parsePrometheusTextFormat from "parse-prometheus-text-format";

interface ParsedSample {
  value?: string;
  labels?: Record<string, string>;
  buckets?: Record<string, string>;
  count?: string;
  sum?: string;
}
interface ParsedFamily {
  name: string;
  help: string;
  type: string;
  metrics: ParsedSample[];
}

export interface Scrape {
  families: ParsedFamily[];
  /** The value of a counter or gauge sample with exactly these labels; undefined when absent. */
  value(name: string, labels?: Record<string, string>): number | undefined;
  /** A histogram's buckets (le → cumulative count), count and sum for these labels. */
  histogram(
    name: string,
    labels: Record<string, string>,
  ): { buckets: Record<string, number>; count: number; sum: number } | undefined;
  type(name: string): string | undefined;
}

const sameLabels = (a: Record<string, string> | undefined, b: Record<string, string>) => {
  const x = a ?? {};
  return Object.keys(x).length === Object.keys(b).length && Object.entries(b).every(([k, v]) => x[k] === v);
};

const escapeLabel = (value: string) => value.replace(/\\/g, "\\\\").replace(/"/g, '\\"').replace(/\n/g, "\\n");

export function parseScrape(text: string): Scrape {
  const families = parsePrometheusTextFormat(text) as ParsedFamily[];
  const family = (name: string) => families.find((f) => f.name === name);
  return {
    families,
    type: (name) => family(name)?.type,
    value(name, labels = {}) {
      const sample = family(name)?.metrics.find((m) => sameLabels(m.labels, labels));
      return sample?.value === undefined ? undefined : Number(sample.value);
    },
    histogram(name, labels) {
      if (family(name)?.type !== "HISTOGRAM") return undefined;
      // The parser folds every label set of a histogram into one (it reads unlabeled histograms
      // only), so one series at a time is handed to it with its fixed labels taken off.
      const fixed = Object.entries(labels).map(([k, v]) => `${k}="${escapeLabel(v)}"`);
      const lines = text.split("\n").filter((line) => {
        const m = /^(\w+)\{(.*)\} \S+$/.exec(line);
        if (!m || ![`${name}_bucket`, `${name}_sum`, `${name}_count`].includes(m[1]!)) return false;
        const own = m[2]!.split(/,(?=\w+=")/).filter((part) => !part.startsWith("le="));
        return own.length === fixed.length && fixed.every((part) => own.includes(part));
      });
      if (lines.length === 0) return undefined;
      const alone = lines.map((line) =>
        line.replace(/\{(.*)\}/, (_, inner: string) => {
          const le = inner.split(/,(?=\w+=")/).find((part) => part.startsWith("le="));
          return le ? `{${le}}` : "";
        }),
      );
      const [one] = parsePrometheusTextFormat(`# TYPE ${name} histogram\n${alone.join("\n")}\n`) as ParsedFamily[];
      const sample = one?.metrics[0];
      if (!sample?.buckets) return undefined;
      const buckets = Object.fromEntries(Object.entries(sample.buckets).map(([le, n]) => [le, Number(n)]));
      return { buckets, count: Number(sample.count), sum: Number(sample.sum) };
    },
  };
}

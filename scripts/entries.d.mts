// Types of scripts/entries.mjs, for the tests that read it.
export interface Entry {
  subpath: string;
  out: string;
  source: string;
  platform: "neutral" | "node";
}
export declare const ENTRIES: Entry[];
export declare const CLI: { out: string; source: string };
export declare function entryPointsOf(platform: Entry["platform"]): Record<string, string>;
export declare function exportOf(entry: Entry): { types: string; import: string };

import type { Plugin } from "esbuild";

export declare const repoRoot: string;
export declare function tickqSources(root?: string): Record<string, string>;
export declare function tickqFromSource(root?: string): Plugin;

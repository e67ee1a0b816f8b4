import type { BuildOptions, Plugin } from "esbuild";

export declare const EXAMPLE_WORKER: string;
export declare const EXAMPLE_VERCEL_FUNCTION: string;
export declare function workerBuildOptions(
  entry?: string,
  plugins?: Plugin[],
): BuildOptions & { write: false; metafile: true };
export declare function vercelBuildOptions(entry?: string): BuildOptions & { write: false };

// The example Worker bundled as `npm run build:functions` bundles it
// (scripts/example-builds.mjs: esbuild, ESM, minified, workerd conditions,
// `tickq` resolved to this repository's sources), kept in memory: test files
// running at once never read a file another is writing.
import { build } from "esbuild";
import { workerBuildOptions } from "../../scripts/example-builds.mjs";

export interface WorkerBuild {
  code: string;
  /** The source files that put bytes in the bundle (esbuild's metafile): what tree-shaking kept. */
  inputs: string[];
}

/** `entry`: another Worker than the example (examples/cloudflare-worker/src/index.ts), bundled the same way. */
export async function workerBuild(entry?: string): Promise<WorkerBuild> {
  const out = await build(workerBuildOptions(entry));
  const inputs = Object.values(out.metafile.outputs)[0]!.inputs;
  return {
    code: out.outputFiles[0]!.text,
    inputs: Object.keys(inputs).filter((path) => inputs[path]!.bytesInOutput > 0),
  };
}

export async function workerBundle(entry?: string): Promise<string> {
  return (await workerBuild(entry)).code;
}

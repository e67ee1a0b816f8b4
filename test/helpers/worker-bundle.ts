// The example Worker bundled as scripts/build-functions.mjs bundles it
// (esbuild, ESM, minified, workerd conditions), kept in memory: test files
// running at once never read a dist/functions/worker.js another is writing.
import { build } from "esbuild";

export interface WorkerBuild {
  code: string;
  /** The source files that put bytes in the bundle (esbuild's metafile): what tree-shaking kept. */
  inputs: string[];
}

export async function workerBuild(entry = "functions/cloudflare/example.ts"): Promise<WorkerBuild> {
  const out = await build({
    entryPoints: [entry], bundle: true, format: "esm", minify: true, platform: "browser",
    conditions: ["workerd", "worker", "browser"], target: "es2022", write: false, logLevel: "warning", metafile: true,
  });
  const inputs = Object.values(out.metafile.outputs)[0]!.inputs;
  return { code: out.outputFiles[0]!.text, inputs: Object.keys(inputs).filter((path) => inputs[path]!.bytesInOutput > 0) };
}

export async function workerBundle(entry?: string): Promise<string> {
  return (await workerBuild(entry)).code;
}

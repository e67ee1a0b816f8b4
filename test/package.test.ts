// Another project can depend on this folder and import both entry points,
// types included: checked against the build that `npm install` makes.
import { execFileSync } from "node:child_process";
import { mkdtempSync, mkdirSync, rmSync, symlinkSync, writeFileSync, existsSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { describe, expect, it } from "vitest";

describe("the package", () => {
  it("exposes tickq and tickq/adapters/ioredis as ESM with types", () => {
    const root = resolve(".");
    expect(existsSync(join(root, "dist/index.js")), "run npm run build (npm install does it)").toBe(true);
    const dir = mkdtempSync(join(tmpdir(), "tickq-consumer-"));
    try {
      mkdirSync(join(dir, "node_modules"));
      symlinkSync(root, join(dir, "node_modules/tickq"));
      symlinkSync(join(root, "node_modules/ioredis"), join(dir, "node_modules/ioredis"));
      writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "module" }));
      writeFileSync(
        join(dir, "main.mjs"),
        `import { createTickq, scripts } from "tickq";
         import { ioredisAdapter } from "tickq/adapters/ioredis";
         const tq = createTickq({ redis: ioredisAdapter({ evalsha() {}, eval() {} }), jobs: { a: () => {} } });
         console.log(typeof tq.tick, typeof tq.enqueue, Object.keys(scripts).length > 0);`,
      );
      const out = execFileSync(process.execPath, ["main.mjs"], { cwd: dir, encoding: "utf8" });
      expect(out.trim()).toBe("function function true");

      writeFileSync(
        join(dir, "check.ts"),
        `import { createTickq, type TickReport } from "tickq";
         import { ioredisAdapter } from "tickq/adapters/ioredis";
         import { Redis } from "ioredis";
         const tq = createTickq({ redis: ioredisAdapter(new Redis()), jobs: { mail: async (args: [string]) => {} } });
         void tq.enqueue("mail", ["a@b.c"]);
         // @ts-expect-error wrong args type
         void tq.enqueue("mail", [1]);
         const r: Promise<TickReport> = tq.tick();`,
      );
      writeFileSync(
        join(dir, "tsconfig.json"),
        JSON.stringify({ compilerOptions: { strict: true, module: "NodeNext", moduleResolution: "NodeNext", target: "ES2022", noEmit: true, skipLibCheck: true, types: [] }, files: ["check.ts"] }),
      );
      execFileSync(process.execPath, [join(root, "node_modules/typescript/bin/tsc"), "-p", dir], { encoding: "utf8" });
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

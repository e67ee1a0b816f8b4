// A git ref checked out beside this checkout for benches that compare trees
// (plain-cost.ts, client-instructions.ts): a temporary worktree that shares
// this checkout's node_modules, removed when the bench is done.
import { execFileSync } from "node:child_process";
import { mkdtempSync, rmSync, symlinkSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";

/** The ref checked out in a temporary worktree that shares this checkout's node_modules. */
export function worktreeOf(repo: string, ref: string): { dir: string; remove(): void } {
  const dir = join(mkdtempSync(join(tmpdir(), "tickq-ref-")), "tree");
  execFileSync("git", ["-C", repo, "worktree", "add", "--detach", dir, ref], { stdio: "ignore" });
  symlinkSync(join(repo, "node_modules"), join(dir, "node_modules"));
  return {
    dir,
    remove: () => {
      execFileSync("git", ["-C", repo, "worktree", "remove", "--force", dir], { stdio: "ignore" });
      rmSync(resolve(dir, ".."), { recursive: true, force: true });
    },
  };
}

// The docs hold together: every relative link of the README and of the
// pages under docs/ names a file that exists and, with a #fragment, a
// heading of that page, as both GitHub and the docs site spell its anchor.
// VitePress checks links to pages when it builds the site (npm run
// docs:build, a step of .ci/run), not fragments; this checks both, in
// milliseconds. The generated reference (docs/reference/, written by
// `npm run docs:reference` and not committed) is not read, and no page may
// link into it: GitHub has no copy, so the sidebar is the way there.
import { existsSync, readdirSync, readFileSync } from "node:fs";
import { dirname, join, resolve, sep } from "node:path";
import { describe, expect, it } from "vitest";

const root = resolve(".");
const generated = join("docs", "reference") + sep;

function markdownFiles(): string[] {
  const pages = readdirSync(join(root, "docs"), { recursive: true, encoding: "utf8" })
    .filter((path) => path.endsWith(".md") && !path.split(/[\\/]/).some((part) => part.startsWith(".")))
    .map((path) => join("docs", path));
  return ["README.md", "CONTRIBUTING.md", ...pages].filter(
    (file) => existsSync(join(root, file)) && !file.startsWith(generated),
  );
}

/** The file's text with fenced code blocks blanked, so a link or heading inside code is not read. */
function prose(file: string): string {
  return readFileSync(join(root, file), "utf8").replace(/^```[\s\S]*?^```/gm, "");
}

/** A heading's text as rendered: inline code and links reduced to their text. */
const headingText = (raw: string) =>
  raw
    .replace(/`([^`]*)`/g, "$1")
    .replace(/\[([^\]]*)\]\([^)]*\)/g, "$1")
    .trim();

/** GitHub's anchor for a heading. */
const githubSlug = (text: string) =>
  text
    .toLowerCase()
    .replace(/[^\p{L}\p{N}\- _]/gu, "")
    .replace(/ /g, "-");

/** VitePress's anchor for a heading (its default slugify). */
const siteSlug = (text: string) =>
  text
    .normalize("NFKD")
    .replace(/[\u0300-\u036F]/g, "")
    .replace(/[\u0000-\u001f]/g, "")
    .replace(/[\s~`!@#$%^&*()\-_+=[\]{}|\\;:"'“”‘’<>,.?/]+/g, "-")
    .replace(/-{2,}/g, "-")
    .replace(/^-+|-+$/g, "")
    .replace(/^(\d)/, "_$1")
    .toLowerCase();

function anchors(file: string, slug: (text: string) => string): Set<string> {
  const found = new Set<string>();
  for (const match of prose(file).matchAll(/^#{1,6} (.+)$/gm)) {
    const base = slug(headingText(match[1]!));
    let anchor = base;
    for (let n = 1; found.has(anchor); n++) anchor = `${base}-${n}`;
    found.add(anchor);
  }
  return found;
}

describe("the docs", () => {
  it("link only to files and headings that exist", () => {
    const files = markdownFiles();
    expect(files.length).toBeGreaterThan(20);
    const broken: string[] = [];
    let checked = 0;
    for (const file of files) {
      for (const match of prose(file).matchAll(/\]\(([^)\s]+)\)/g)) {
        const link = match[1]!;
        if (/^[a-z]+:/i.test(link)) continue; // http:, mailto:
        const [path, fragment] = link.split("#") as [string, string | undefined];
        const target = path === "" ? file : join(dirname(file), decodeURIComponent(path));
        checked++;
        if (target.startsWith(generated)) {
          broken.push(`${file}: ${link} (the generated reference is not in git: name the type, the sidebar links it)`);
          continue;
        }
        if (!existsSync(join(root, target))) {
          broken.push(`${file}: ${link} (no file ${target})`);
          continue;
        }
        if (fragment === undefined || !target.endsWith(".md")) continue;
        if (!anchors(target, githubSlug).has(fragment))
          broken.push(`${file}: ${link} (no heading with GitHub's anchor #${fragment})`);
        if (target !== "README.md" && !anchors(target, siteSlug).has(fragment))
          broken.push(`${file}: ${link} (no heading with the site's anchor #${fragment})`);
      }
    }
    expect(checked).toBeGreaterThan(100);
    expect(broken).toEqual([]);
  });
});

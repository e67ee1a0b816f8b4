// A piece of a page as Hono's `html` template makes it. Its own file so the
// page script can be typed without importing the layout that includes it.
import type { HtmlEscapedString } from "hono/utils/html";

export type Html = HtmlEscapedString | Promise<HtmlEscapedString>;

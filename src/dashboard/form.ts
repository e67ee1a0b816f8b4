// Every POST to the dashboard is one small form (the CSRF token, the page to
// come back to, a job name). Its body is capped and parsed here, once, before
// the login form and the guard read it (Hono keeps the parsed form for them):
// the login form answers without a session, so with no cap anyone could make
// the server buffer, then hash, a body of any size; and a body that is no
// valid form is the sender's mistake, a 400, not a 500 with a stack trace in
// the log.
import type { MiddlewareHandler } from "hono";
import { bodyLimit } from "hono/body-limit";

/** Far more than any of the dashboard's forms holds (a `back` URL with a cursor is well under 1 KB). */
export const MAX_FORM_BYTES = 16 * 1024;

const isRead = (method: string) => method === "GET" || method === "HEAD";

/** The cap: a Content-Length over it, or a streamed body once it passes it, is a 413 (the rest is never read). */
const capped: MiddlewareHandler = bodyLimit({
  maxSize: MAX_FORM_BYTES,
  onError: (c) => c.text(`refused: a dashboard form is at most ${MAX_FORM_BYTES} bytes`, 413),
});

const parsed: MiddlewareHandler = async (c, next) => {
  if (!isRead(c.req.method)) {
    try {
      await c.req.parseBody();
    } catch {
      return c.text("refused: the body is not a form (application/x-www-form-urlencoded or multipart/form-data)", 400);
    }
  }
  await next();
};

/** Before every dashboard route, the login form included. */
export const formBody: MiddlewareHandler[] = [capped, parsed];

// Your app's route: POST /api/signup {"email": "…"} enqueues the welcome
// email with a kick. The kicked tick runs in Vercel's waitUntil, so the
// response does not wait for it and the email goes out within milliseconds.
import { tickqApp } from "../lib/tickq.js";

export async function POST(request: Request): Promise<Response> {
  const body: unknown = await request.json().catch(() => undefined);
  const email = (body as { email?: unknown } | undefined)?.email;
  if (typeof email !== "string" || !email.includes("@")) {
    return Response.json({ error: 'send {"email": "you@example.com"}' }, { status: 400 });
  }
  const jid = await tickqApp.tickq().enqueue("sendWelcomeEmail", [email], { kick: true });
  return Response.json({ welcome: "on its way", jid }, { status: 201 });
}

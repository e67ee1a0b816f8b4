// Your app's route: a signup enqueues its welcome email with a kick, so it goes out at once (in
// after(), once the response is sent) instead of at the next tick.
import { tickq } from "../../../lib/tickq";

export async function POST(request: Request) {
  const { email } = (await request.json().catch(() => ({}))) as { email?: unknown };
  if (typeof email !== "string" || !email.includes("@")) {
    return Response.json({ error: 'send {"email": "you@example.com"}' }, { status: 400 });
  }
  const jid = await tickq.tickq().enqueue("sendWelcomeEmail", [email], { kick: true });
  return Response.json({ welcome: "on its way", jid }, { status: 201 });
}

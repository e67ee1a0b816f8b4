// tickq's routes (/api/tickq/tick, /jobs, /stats, /health) and the dashboard at /api/tickq/dashboard.
import { tickq } from "../../../../lib/tickq";

export const { GET, HEAD, POST, PUT, PATCH, DELETE } = tickq;
// Every request reads Redis: never prerendered.
export const dynamic = "force-dynamic";

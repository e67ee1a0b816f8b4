// tickq's routes (/api/tickq/tick, /jobs, /stats, /health) and the dashboard at /api/tickq/dashboard.
import { tickq } from "../../../../lib/tickq";

export const { GET, HEAD, POST, PUT, PATCH, DELETE } = tickq;
// No `dynamic` setting: a catch-all route is never prerendered, and Next refuses one where
// next.config.ts turns cacheComponents on (as create-next-app writes it).

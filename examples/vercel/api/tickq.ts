// tickq's routes as one Vercel Function at /api/tickq/*; Vercel Cron calls
// GET /api/tickq/tick (vercel.json) with `Authorization: Bearer $CRON_SECRET`.
// For the Edge runtime instead of Node, add: export const config = { runtime: "edge" };
import { tickqApp } from "../lib/tickq.js";

export const { GET, POST } = tickqApp;

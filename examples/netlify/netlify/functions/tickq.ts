// The app, at /api/*: kicked ticks run in the request's context.waitUntil.
import type { Config } from "@netlify/functions";
import { tickq } from "../../src/app.js";

export default tickq.fetch;

export const config: Config = { path: "/api/*" };

// A scheduled function: every minute it ticks until no work is left or 25 s are spent.
import type { Config } from "@netlify/functions";
import { tickq } from "../../src/app.js";

export default tickq.scheduled;

export const config: Config = { schedule: "* * * * *" };

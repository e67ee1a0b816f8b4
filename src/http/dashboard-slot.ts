// What the app hands the dashboard when it mounts it (AppOptions.dashboard),
// and what the dashboard's handlers read per request: the app declares the
// slot, src/dashboard/ fills it (so the app imports nothing of the dashboard).
import type { Hono } from "hono";
import type { JobRegistry, Tickq } from "../index.js";
import type { Throttle } from "./throttle.js";

/** What the app hands the dashboard when it mounts it. */
export interface DashboardScope {
  /** The app's tickq. */
  tickq: Tickq<JobRegistry>;
  /** The app's accepted secrets; the login form takes any of them. */
  secrets: string[];
  /** Those of `secrets` that only read (TICKQ_READ_SECRET): their sessions change nothing but logging out. */
  readSecrets?: string[];
  /** No secret and `insecure`: the dashboard is open, as the API is (local development). */
  insecure: boolean;
  /** Where the dashboard is mounted, e.g. "/dashboard" or "/api/dashboard" on Vercel. */
  basePath: string;
  /** Slows down a client's repeated failed logins, shared with the API's bearer failures; none: no limit. */
  throttle?: Throttle;
}

/** A dashboard login's session, as its signed cookie holds it (src/dashboard/session.ts). */
export interface Session {
  nonce: string;
  /** The secret that signed it: it keys the session's CSRF token too. */
  key: string;
  /** When the cookie stops being accepted (epoch ms). */
  expiresMs: number;
}

/** The Hono environment of the dashboard's routes. */
export interface DashboardEnv {
  Variables: {
    /** The session the guard accepted. */
    session: Session;
    /** The CSRF token every state-changing form of this session carries. */
    csrf: string;
    /** Where the dashboard is mounted (links and redirects start with it). */
    base: string;
  };
}

/** `dashboard()` from "tickq/dashboard": the app mounts what it returns at /dashboard. */
export type Dashboard = (scope: DashboardScope) => Hono<DashboardEnv>;

// The adapters every core suite runs over (describe.each(adapterCases)):
// ioredis over TCP; @upstash/redis, and restAdapter (fetch alone), over HTTP
// through the local Upstash-compatible server in front of the same Redis.
import { inject } from "vitest";
import { startUpstashLocal } from "../../tools/upstash-local/server.js";
import { openAdapter, type Endpoints, type OpenedAdapter } from "./open-adapter.js";
import { startProxy } from "./proxy.js";

export interface AdapterCase {
  name: string;
  endpoints(): Endpoints;
  open(): OpenedAdapter;
}

function adapterCase(name: string): AdapterCase {
  const endpoints = () => ({ redisUrl: inject("redisUrl"), restUrl: inject("restUrl"), restToken: inject("restToken") });
  return { name, endpoints, open: () => openAdapter(name, endpoints()) };
}

export const adapterCases: AdapterCase[] = [adapterCase("ioredis"), adapterCase("upstash"), adapterCase("rest")];

export interface CuttableAdapter extends OpenedAdapter {
  /** Makes Redis unreachable for this adapter from now on. */
  cut(): Promise<void>;
  /** Makes this adapter's calls hang from now on (a network that swallows packets); cut() ends it. */
  stall(): void;
}

/** An adapter whose Redis (TCP) or REST endpoint (HTTP) nothing listens on. */
export function openUnreachable(name: string): OpenedAdapter {
  return name === "ioredis"
    ? openAdapter(name, { redisUrl: "redis://127.0.0.1:1", restUrl: "", restToken: "" })
    : openAdapter(name, { redisUrl: "", restUrl: "http://127.0.0.1:1", restToken: "t" });
}

/** An adapter that works until cut() or stall(): through a TCP proxy, and over HTTP a private REST server in front of it. */
export async function openCuttable(name: string): Promise<CuttableAdapter> {
  const endpoints = { redisUrl: inject("redisUrl"), restUrl: inject("restUrl"), restToken: inject("restToken") };
  const proxy = await startProxy(endpoints.redisUrl);
  if (name === "ioredis") {
    return { ...openAdapter(name, { ...endpoints, redisUrl: proxy.url }), cut: proxy.cut, stall: proxy.stall };
  }
  // anyScript: as test/setup/global.ts, suites run their own Lua over it.
  const rest = await startUpstashLocal({ redisUrl: proxy.url, token: endpoints.restToken, anyScript: true });
  const cut = async () => {
    await proxy.cut();
    await rest.close();
  };
  return { ...openAdapter(name, { ...endpoints, restUrl: rest.url }), cut, stall: proxy.stall };
}

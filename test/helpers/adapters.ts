// The adapters every core suite runs over (describe.each(adapterCases)):
// ioredis over TCP, and @upstash/redis over HTTP through the local
// Upstash-compatible server in front of the same Redis.
import { inject } from "vitest";
import { openAdapter, type Endpoints, type OpenedAdapter } from "./open-adapter.js";

export interface AdapterCase {
  name: string;
  endpoints(): Endpoints;
  open(): OpenedAdapter;
}

function adapterCase(name: string): AdapterCase {
  const endpoints = () => ({ redisUrl: inject("redisUrl"), restUrl: inject("restUrl"), restToken: inject("restToken") });
  return { name, endpoints, open: () => openAdapter(name, endpoints()) };
}

export const adapterCases: AdapterCase[] = [adapterCase("ioredis"), adapterCase("upstash")];

// The adapters every core suite runs over (describe.each(adapterCases)).
import { inject } from "vitest";
import { openAdapter, type Endpoints, type OpenedAdapter } from "./open-adapter.js";

export interface AdapterCase {
  name: string;
  endpoints(): Endpoints;
  open(): OpenedAdapter;
}

function adapterCase(name: string): AdapterCase {
  const endpoints = () => ({ redisUrl: inject("redisUrl") });
  return { name, endpoints, open: () => openAdapter(name, endpoints()) };
}

export const adapterCases: AdapterCase[] = [adapterCase("ioredis")];

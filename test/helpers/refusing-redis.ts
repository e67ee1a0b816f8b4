// A Redis that refuses a command a plain one runs, as a managed service or an ACL does: a private
// redis-server started with `serverArgs`, and the local REST server in front of it. Hooks a test file's
// beforeAll/afterAll; `open(name)` opens an adapter of that name on it.
import { afterAll, beforeAll } from "vitest";
import { startUpstashLocal, type UpstashLocalServer } from "../../tools/upstash-local/server.js";
import { openAdapter, type OpenedAdapter } from "./open-adapter.js";
import { startPrivateRedis, type PrivateRedis } from "./private-redis.js";

export interface RefusingRedis {
  /** The private server's URL (set once beforeAll ran). */
  url(): string;
  open(adapterName: string): OpenedAdapter;
}

export function useRefusingRedis(serverArgs: string[], token: string): RefusingRedis {
  let server: PrivateRedis | undefined;
  let rest: UpstashLocalServer | undefined;
  beforeAll(async () => {
    server = await startPrivateRedis(serverArgs);
    rest = await startUpstashLocal({ redisUrl: server.url, token });
  });
  afterAll(async () => {
    await rest?.close();
    await server?.stop();
  });
  return {
    url: () => server!.url,
    open: (adapterName) => openAdapter(adapterName, { redisUrl: server!.url, restUrl: rest!.url, restToken: token }),
  };
}

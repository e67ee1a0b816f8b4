// A TCP proxy in front of Redis: tests cut it to play a Redis that dies in
// the middle of a tick, or stall it to play a network that swallows every
// packet (calls hang, nothing errors); the benchmark watches what clients
// send through it.
import { createServer, connect, type Socket } from "node:net";

export interface Proxy {
  url: string;
  /** Drops every connection and stops listening. */
  cut(): Promise<void>;
  /** From now on, forwards nothing either way and closes nothing: calls hang. */
  stall(): void;
}

/** `watch` is called once per client connection and gets what that client sends. */
export async function startProxy(redisUrl: string, watch?: () => (chunk: Buffer) => void): Promise<Proxy> {
  const target = new URL(redisUrl);
  const sockets = new Set<Socket>();
  let stalled = false;
  const forward = (from: Socket, to: Socket) => {
    from.on("data", (chunk: Buffer) => void (stalled || to.write(chunk)));
    from.on("end", () => to.end());
  };
  const server = createServer((client) => {
    const upstream = connect(Number(target.port || 6379), target.hostname);
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.setNoDelay(true);
      s.on("error", () => {});
      s.on("close", () => sockets.delete(s));
    }
    if (watch) client.on("data", watch());
    forward(client, upstream);
    forward(upstream, client);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const port = typeof address === "object" && address ? address.port : 0;
  return {
    url: `redis://127.0.0.1:${port}`,
    cut: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
    stall: () => void (stalled = true),
  };
}

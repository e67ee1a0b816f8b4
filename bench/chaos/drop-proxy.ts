// A TCP proxy in front of Redis that can drop one reply: armed, it lets the
// next client chunk that carries a script call (EVAL/EVALSHA) through to
// Redis, waits for Redis to answer (so the command has run), then destroys
// the client's socket instead of passing the answer on. ioredis reconnects
// and resends what it never got an answer for (autoResendUnfulfilledCommands):
// the script runs a second time. Connections close in both directions
// together, so a Redis that dies or a CLIENT KILL reaches the client.
import { connect, createServer, type Socket } from "node:net";
import { dropTrigger } from "./drop-trigger.js";

export interface DropProxy {
  url: string;
  /** Drops the reply to the next script call; resolves true once one was dropped, false after timeoutMs. */
  dropNextReply(timeoutMs: number): Promise<boolean>;
  dropped(): number;
  close(): Promise<void>;
}

const SCRIPT = [Buffer.from("eval"), Buffer.from("EVAL")];
const carriesScript = (chunk: Buffer) => SCRIPT.some((word) => chunk.includes(word));

export async function startDropProxy(port: number, host = "127.0.0.1"): Promise<DropProxy> {
  const sockets = new Set<Socket>();
  const trigger = dropTrigger();

  const server = createServer((client) => {
    const upstream = connect(port, host);
    let dropping = false;
    const closeBoth = () => {
      client.destroy();
      upstream.destroy();
    };
    for (const s of [client, upstream]) {
      sockets.add(s);
      s.setNoDelay(true);
      s.on("error", () => {});
      s.on("close", () => {
        sockets.delete(s);
        // Redis keeps its side a moment longer while a reply is dropped, so it
        // surely runs everything it was sent.
        if (dropping && s === client) setTimeout(() => upstream.destroy(), 100);
        else closeBoth();
      });
    }
    client.on("data", (chunk: Buffer) => {
      if (!dropping && carriesScript(chunk) && trigger.claim()) dropping = true;
      upstream.write(chunk);
    });
    upstream.on("data", (chunk: Buffer) => {
      if (!dropping) return void client.write(chunk);
      if (!client.destroyed) {
        client.destroy();
        trigger.fired();
      }
    });
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  const address = server.address();
  const bound = typeof address === "object" && address ? address.port : 0;

  return {
    url: `redis://127.0.0.1:${bound}`,
    dropNextReply: (timeoutMs) => trigger.arm(timeoutMs),
    dropped: trigger.dropped,
    close: async () => {
      for (const s of sockets) s.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

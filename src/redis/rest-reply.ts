// Decodes a reply of the Upstash REST protocol sent with
// `Upstash-Encoding: base64`: every string is the base64 of Redis' bytes,
// read as UTF-8 (as ioredis reads them), except "OK" — a status reply the
// server leaves as it is, and never a valid base64 encoding.
import type { RedisReply } from "./types.js";

// ignoreBOM: a job that starts with a byte order mark keeps it, as ioredis (Node's Buffer) reads it;
// TextDecoder as built by default drops it, and the job then names nothing in Redis (its ack misses).
const utf8 = new TextDecoder("utf-8", { ignoreBOM: true });

export function decodeReply(value: unknown): RedisReply {
  if (value === null || typeof value === "number") return value;
  if (typeof value === "string") return value === "OK" ? value : utf8.decode(bytesOf(value));
  if (Array.isArray(value)) return value.map(decodeReply);
  throw new Error(`Redis REST reply holds a ${typeof value}, not a Redis value: is the server an Upstash REST API?`);
}

function bytesOf(base64: string): Uint8Array {
  let binary: string;
  try {
    binary = atob(base64);
  } catch {
    throw new Error(
      `Redis REST reply holds ${JSON.stringify(base64.slice(0, 40))}, not base64: does the server honour Upstash-Encoding: base64?`,
    );
  }
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

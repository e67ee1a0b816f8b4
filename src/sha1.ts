// SHA-1 in hex with WebCrypto (Node, Workers and Vercel's edge all have it):
// script digests for EVALSHA, large jobs' names in acks, a migration's names
// for the dead entries it moves.

/** The SHA-1 of `text`'s UTF-8 bytes, as 40 hex digits. */
export async function sha1Hex(text: string): Promise<string> {
  const bytes = new Uint8Array(await crypto.subtle.digest("SHA-1", new TextEncoder().encode(text)));
  return Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
}

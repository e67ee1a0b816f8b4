// A tick's id: 16 hex digits (64 random bits), the form jids' first 16 digits have, so ids
// written by older releases (a jid cut short) and by this one read alike in `ticks` and leases.
const HEX = Array.from({ length: 256 }, (_, b) => b.toString(16).padStart(2, "0"));

export function newTickId(): string {
  let id = "";
  for (const b of crypto.getRandomValues(new Uint8Array(8))) id += HEX[b];
  return id;
}

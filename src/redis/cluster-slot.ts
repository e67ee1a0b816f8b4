// Redis Cluster's key-to-slot rule, as the server computes it: the cluster
// adapter routes a script by its first key's slot, and partitions choose
// hash tags whose slots spread over the masters.

/** The number of hash slots of a Redis Cluster. */
export const SLOTS = 16_384;

/** Redis Cluster's CRC16 (XMODEM) of a string's UTF-8 bytes. */
export function crc16(text: string): number {
  let crc = 0;
  for (const byte of new TextEncoder().encode(text)) {
    crc ^= byte << 8;
    for (let bit = 0; bit < 8; bit++) crc = crc & 0x8000 ? ((crc << 1) ^ 0x1021) & 0xffff : (crc << 1) & 0xffff;
  }
  return crc;
}

/** The cluster slot of a key, honouring a `{hash tag}` as Redis does. */
export function slotOf(key: string): number {
  const open = key.indexOf("{");
  if (open >= 0) {
    const close = key.indexOf("}", open + 1);
    if (close > open + 1) return crc16(key.slice(open + 1, close)) % SLOTS;
  }
  return crc16(key) % SLOTS;
}

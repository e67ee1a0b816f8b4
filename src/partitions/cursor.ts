// One cursor across partitions: the partition a listing is in and that
// partition's own cursor ("" before its first page), as `k.inner`.
import { TickqError } from "../errors.js";

export function encodeCursor(partition: number, inner: string | null | undefined): string {
  return `${partition}.${inner ?? ""}`;
}

/** Where a listing resumes: partition 0's start for no cursor; BAD_CURSOR for one this tickq did not write. */
export function decodeCursor(
  cursor: string | null | undefined,
  count: number,
): { partition: number; inner: string | undefined } {
  if (cursor === undefined || cursor === null || cursor === "") return { partition: 0, inner: undefined };
  const dot = typeof cursor === "string" ? cursor.indexOf(".") : -1;
  const partition = dot > 0 ? Number(cursor.slice(0, dot)) : Number.NaN;
  if (!Number.isInteger(partition) || partition < 0 || partition >= count)
    throw new TickqError(
      "BAD_CURSOR",
      `cursor ${JSON.stringify(cursor)} is not one a listing over ${count} partitions returned`,
    );
  const inner = cursor.slice(dot + 1);
  return { partition, inner: inner === "" ? undefined : inner };
}

/**
 * Pages through partitions in turn from `cursor`, filling up to `limit` items: each partition's
 * listing in its own order, partition after partition.
 */
export async function pageAcross<T>(
  count: number,
  cursor: string | null | undefined,
  limit: number,
  read: (
    partition: number,
    inner: string | undefined,
    limit: number,
  ) => Promise<{ items: T[]; next: string | undefined }>,
): Promise<{ items: T[]; cursor: string | undefined }> {
  let { partition, inner } = decodeCursor(cursor, count);
  const items: T[] = [];
  for (;;) {
    const page = await read(partition, inner, limit - items.length);
    items.push(...page.items);
    if (page.next !== undefined) {
      if (items.length >= limit) return { items, cursor: encodeCursor(partition, page.next) };
      inner = page.next;
      continue;
    }
    if (partition + 1 >= count) return { items, cursor: undefined };
    partition += 1;
    inner = undefined;
    if (items.length >= limit) return { items, cursor: encodeCursor(partition, undefined) };
  }
}

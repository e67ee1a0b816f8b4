// A job's `created_at`, `enqueued_at`, `failed_at`: Sidekiq 7 (and tickq)
// write epoch seconds as a float; Sidekiq 8 writes integer epoch
// milliseconds. JSON.parse cannot tell 1700000000.0 from 1700000000, so the
// size tells: seconds stay below 1e11 until the year 5138, milliseconds have
// been above it since 1973.
const MS_FROM = 1e11;

/** A job timestamp in epoch ms, whichever unit its writer used. */
export function jobTimeMs(value: number): number {
  return Math.abs(value) >= MS_FROM ? value : value * 1000;
}

// A job's fields as stored in Redis: Sidekiq's job JSON, which a Ruby app's
// Sidekiq reads too, and the fields tickq adds (tickq_*). Stored bytes are
// never re-encoded (json-splice.ts): this type is how TypeScript reads them.

/** A job as stored in Redis: Sidekiq's job JSON, plus any extra fields. */
export interface JobPayload {
  /** The job's name (Sidekiq's worker class). */
  class: string;
  /** The arguments the handler receives, as enqueued. */
  args: unknown[];
  /** The job's id. */
  jid: string;
  /** The queue it runs from. */
  queue: string;
  /** true: up to `maxRetries` retries; a number: that many; false: none. */
  retry: boolean | number;
  /** When it was first enqueued (epoch seconds, Redis' clock, as Sidekiq writes it). */
  created_at?: number;
  /** When it was last pushed to its queue (epoch seconds). */
  enqueued_at?: number;
  /** The last failure's message. */
  error_message?: string;
  /** The last failure's error name (its class). */
  error_class?: string;
  /** When it first failed (epoch seconds). */
  failed_at?: number;
  /** When it last failed again, on a retry (epoch seconds). */
  retried_at?: number;
  /** Retries used so far: 0 after the first failure (Sidekiq's count); absent before any. */
  retry_count?: number;
  /** The failure's stack frames: zlib-deflated JSON, base64'd (Sidekiq 7), or an array (Sidekiq 6). */
  error_backtrace?: string | string[];
  /** The failed run's last ctx.log lines (capped: `logLines`). */
  tickq_log?: string[];
  /** Its priority within its queue (enqueue's `priority`), when not 0. */
  tickq_priority?: number;
  /** Its group for fair shares (enqueue's `group`, or the job's `group(args)`). */
  tickq_group?: string;
  [field: string]: unknown;
}

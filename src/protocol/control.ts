// Small state changes outside a tick: pausing queues, dashboard sessions, the
// login throttle, kick slots and the parallel-tick gate.
import { scripts } from "../lua/index.js";
import { counted, defineCall, flag, group, groups, key, list, number, text, tuple } from "./define.js";

export const pause = defineCall(scripts.pause, { paused: key }, { queue: text, paused: flag }, flag);

export const session = defineCall(scripts.session, { ended: key }, { op: text, ms: number }, flag);

export const throttle = defineCall(
  scripts.throttle,
  { failures: key },
  { op: text, windowMs: number, limit: number, attempt: text },
  number,
);

export const kick = defineCall(
  scripts.kick,
  { kicks: key, waiting: key },
  { op: text, token: text, arg: text, ttlMs: number },
  number,
);

export const parallel = defineCall(
  scripts.parallel,
  { ticks: key, reserved: key },
  { maxLive: number, reserveMs: number, ids: counted(text) },
  tuple({ granted: number, others: number }),
);

export const partitions = defineCall(scripts.partitions, { meta: key }, { count: number }, text);

export const partition_move_begin = defineCall(
  scripts.partition_move_begin,
  { meta: key },
  { from: number, to: number, id: text },
  text,
);

export const partition_move_finish = defineCall(
  scripts.partition_move_finish,
  { meta: key },
  { mark: text, to: number },
  text,
);

export const partition_unmovable = defineCall(
  scripts.partition_unmovable,
  { counts: key, waiting: key },
  { cursor: text },
  tuple({ cursor: text, found: groups({ key: text, size: number }), runs: number, parked: number }),
);

export const partition_dead_read = defineCall(
  scripts.partition_dead_read,
  { dead: key },
  { count: number },
  groups({ entry: text, score: text }),
);

export const partition_dead_remove = defineCall(scripts.partition_dead_remove, { dead: key }, { entry: text }, flag);

export const partition_shape = defineCall(
  scripts.partition_shape,
  { meta: key },
  {},
  tuple({ stored: text, ranges: groups({ first: number, last: number, master: text }) }),
);

export const partition_adopt = defineCall(
  scripts.partition_adopt,
  { adopted: key, into: key },
  {
    jid: text,
    score: text,
    job: text,
    keepMs: number,
    windowFirst: text,
    windowTtl: number,
    claim: flag,
    wait: flag,
    deferred: text,
    rate: counted(group({ member: text, at: text })),
  },
  number,
);

export const partition_carry_read = defineCall(
  scripts.partition_carry_read,
  { locks: key },
  { job: text },
  tuple({
    windowFirst: text,
    windowTtl: number,
    claim: flag,
    wait: flag,
    deferred: text,
    held: list(text),
    rate: groups({ member: text, at: text }),
  }),
);

export const partition_jid_sets = defineCall(
  scripts.partition_jid_sets,
  { ids: key },
  { cursor: text },
  tuple({ cursor: text, sets: list(text) }),
);

export const partition_jids_read = defineCall(
  scripts.partition_jids_read,
  { ids: key },
  { cursor: text, count: number },
  tuple({ cursor: text, jids: groups({ jid: text, untilMs: text }) }),
);

export const partition_jids_adopt = defineCall(
  scripts.partition_jids_adopt,
  { ids: key },
  { jids: counted(group({ jid: text, untilMs: text })) },
  number,
);

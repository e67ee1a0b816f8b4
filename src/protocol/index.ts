// Every entry script's declaration (src/lua/<name>.lua ↔ protocol.<name>).
export { begin } from "./begin.js";
export { cancel } from "./cancel.js";
export { clear } from "./clear.js";
export { debounce } from "./debounce.js";
export { enqueue } from "./enqueue.js";
export { extend } from "./extend.js";
export { finish } from "./finish.js";
export { given_up } from "./given-up.js";
export { housekeep } from "./housekeep.js";
export { locate } from "./locate.js";
export { move } from "./move.js";
export { ordered_cancel } from "./ordered_cancel.js";
export { ordered_enqueue } from "./ordered_enqueue.js";
export { page } from "./page.js";
export { recurring } from "./recurring.js";
export { result } from "./result.js";
export { step } from "./step.js";
export { history, inflight, metrics, queue_parts, queues, recurring_list, stats, ticks } from "./admin-reads.js";
export {
  kick,
  parallel,
  partition_adopt,
  partition_dead_read,
  partition_dead_remove,
  partition_carry_read,
  partition_jid_sets,
  partition_jids_adopt,
  partition_jids_read,
  partition_move_begin,
  partition_move_finish,
  partition_shape,
  partition_unmovable,
  partitions,
  pause,
  session,
  throttle,
} from "./control.js";
export {
  workflow_cancel,
  workflow_deliver,
  workflow_event,
  workflow_list,
  workflow_live,
  workflow_read,
  workflow_retry,
  workflow_fork,
  workflow_start,
  workflow_start_bulk,
  workflow_steps,
  workflow_tick,
} from "./workflows.js";
export { workflow_child, workflow_children } from "./workflow-children.js";

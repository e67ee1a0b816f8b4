// Commands the local REST server refuses: every command not on its list
// (allowed.ts), and, with a reason of their own, those that would break the
// one ioredis connection every request shares (a command that changes its
// state, blocks it, or turns it into a push stream).
import { isAllowed } from "./allowed.js";
import { isShippedSha, isShippedText } from "./scripts.js";

type Command = (string | number)[];

const SHARED = "every request shares one Redis connection";

const STATE = `it changes the state of the connection, and ${SHARED}, so it would change it for all other requests`;
const BLOCKING = `it blocks the connection, and ${SHARED}, so it would hang all other requests`;
const PUBSUB = `pub/sub turns the connection into a stream of messages, and ${SHARED}, so all other requests would break (PUBLISH is allowed)`;

const NOT_ALLOWED =
  "it only runs tickq's scripts (EVAL, EVALSHA) and data commands, never a command that acts on the server (CONFIG, FLUSHALL, SHUTDOWN, REPLICAOF, CLIENT…) or one Redis does not know";

const NOT_SHIPPED =
  "it runs only the Lua scripts tickq ships, as a script can call FLUSHALL, SWAPDB and more (start the server with --any-script to run your own)";

const reasons: Record<string, string> = {
  SELECT: STATE,
  AUTH: STATE,
  HELLO: STATE,
  RESET: STATE,
  QUIT: STATE,
  READONLY: STATE,
  READWRITE: STATE,
  ASKING: STATE,
  MULTI: `${STATE} (use POST /multi-exec for a transaction)`,
  EXEC: `${STATE} (use POST /multi-exec for a transaction)`,
  DISCARD: `${STATE} (use POST /multi-exec for a transaction)`,
  WATCH: `${STATE} (use POST /multi-exec for a transaction)`,
  UNWATCH: `${STATE} (use POST /multi-exec for a transaction)`,
  BLPOP: BLOCKING,
  BRPOP: BLOCKING,
  BLMOVE: BLOCKING,
  BRPOPLPUSH: BLOCKING,
  BZPOPMIN: BLOCKING,
  BZPOPMAX: BLOCKING,
  BLMPOP: BLOCKING,
  BZMPOP: BLOCKING,
  WAIT: BLOCKING,
  WAITAOF: BLOCKING,
  SUBSCRIBE: PUBSUB,
  PSUBSCRIBE: PUBSUB,
  SSUBSCRIBE: PUBSUB,
  UNSUBSCRIBE: PUBSUB,
  PUNSUBSCRIBE: PUBSUB,
  SUNSUBSCRIBE: PUBSUB,
  MONITOR: `MONITOR turns the connection into a stream of every command Redis runs, and ${SHARED}, so all other requests would break`,
  SYNC: `it turns the connection into a replication stream, and ${SHARED}, so all other requests would break`,
  PSYNC: `it turns the connection into a replication stream, and ${SHARED}, so all other requests would break`,
};

const clientReasons: Record<string, string> = {
  REPLY: `CLIENT REPLY stops or skips Redis's replies on the connection, and ${SHARED}, so other requests would get the wrong replies or none`,
  SETNAME: STATE,
  SETINFO: STATE,
  TRACKING: STATE,
  CACHING: STATE,
  "NO-EVICT": STATE,
  "NO-TOUCH": STATE,
};

/** Whether `command` runs a script tickq does not ship (EVAL, EVALSHA, their _RO forms, SCRIPT LOAD). */
function runsOwnScript(name: string, command: Command): boolean {
  const script = String(command[name === "SCRIPT" ? 2 : 1] ?? "");
  if (name === "EVAL" || name === "EVAL_RO") return !isShippedText(script);
  if (name === "EVALSHA" || name === "EVALSHA_RO") return !isShippedSha(script);
  return name === "SCRIPT" && String(command[1] ?? "").toUpperCase() === "LOAD" && !isShippedText(script);
}

/**
 * Why `command` must not run on the shared connection, or undefined when it
 * may. `anyScript` lets any Lua script run (a token holder can then do
 * anything a script can).
 */
export function refusal(command: Command, anyScript = false): string | undefined {
  const name = String(command[0]).toUpperCase();
  let reason = reasons[name];
  let shown = name;
  if (!anyScript && runsOwnScript(name, command)) {
    reason = NOT_SHIPPED;
    if (name === "SCRIPT") shown = "SCRIPT LOAD";
  } else if (name === "CLIENT" && command.length > 1) {
    const sub = String(command[1]).toUpperCase();
    reason = clientReasons[sub];
    shown = `CLIENT ${sub}`;
  } else if ((name === "XREAD" || name === "XREADGROUP") && blocks(command)) {
    reason = `${BLOCKING} (${name} without BLOCK is allowed)`;
    shown = `${name} with BLOCK`;
  }
  if (!reason && !isAllowed(command)) {
    reason = NOT_ALLOWED;
    if (name === "SCRIPT" && command.length > 1) shown = `SCRIPT ${String(command[1]).toUpperCase()}`;
  }
  return reason && `ERR ${shown} is refused by the local REST server: ${reason}`;
}

/** The first refusal among the commands of a pipeline or transaction, naming its position. */
export function refusalIn(commands: Command[], anyScript = false): string | undefined {
  for (const [i, command] of commands.entries()) {
    const refused = refusal(command, anyScript);
    if (refused) return `${refused} (command ${i + 1} of ${commands.length}; nothing ran)`;
  }
  return undefined;
}

/** Whether an XREAD/XREADGROUP has a BLOCK option, skipping option values (a group may be named BLOCK) and stopping at STREAMS. */
function blocks(command: Command): boolean {
  for (let i = 1; i < command.length; ) {
    const word = String(command[i]).toUpperCase();
    if (word === "BLOCK") return true;
    if (word === "STREAMS") return false;
    i += word === "GROUP" ? 3 : word === "COUNT" ? 2 : 1;
  }
  return false;
}

-- A tick's given-up fence (given_up.lua writes it, step.lua reads it): the number of the tick's
-- question about its given-up steps (src/tick/given-up.ts), kept apart from the lease hash, in
-- P.."gaveup:"..ID, so that it outlives the hash (finish leaves the hash to its TTL; it lapses, or a
-- resurrector finds it gone). Every step of the tick is numbered below it: a step that reaches Redis
-- on a lost lease below the fence acts on nothing (while the hash lives, its `seq` fences the same
-- steps already). Finish can then make the acks of every given-up step that never ran, once:
-- finish raises the fence past its own number (raise), so a later copy of finish (a resend, an
-- @upstash/redis retry, a request held in transit) reaching Redis past the hash is below it and acts
-- on nothing; else it would ack by text again, taking a copy a step that ran fetched, one nobody ran
-- (test/integration/replay/given-up-finish-late-after-lease.test.ts). While the hash lives finish
-- knows the tick has a fence by its `gaveup` field (given_up.lua writes it), read in the HMGET it
-- makes anyway (lib/tick/replay-call.lua call_state): a tick that gave no step up pays nothing.
-- Read only on a lost lease: a step or finish that holds the lease pays no command for it.
-- Rolling deploys: an older tick never asks given_up.lua, so it has no fence and its steps on a lost
-- lease ack as before (its finish left their acks out when one ran); a tick's steps run the step.lua
-- of its own code (by the SHA of its own text), so a fenced tick's late step never meets an older
-- step.lua that does not read the fence.
-- A day: a step held in transit longer than that (an HTTP request) is past any Redis or proxy
-- timeout we know of; one key a tick that gave a step up, a few bytes.
-- @include lib/common/prefix-keys.lua
local given_up_fence = { TTL_SEC = 86400 }

function given_up_fence.key(tick)
  return P .. 'gaveup:' .. tick
end

-- Written again by a replay or a later question: the highest number stays, its TTL renewed.
function given_up_fence.put(tick, call)
  local key = given_up_fence.key(tick)
  local fence = tonumber(redis.call('GET', key))
  if not fence or call > fence then fence = call end
  redis.call('SET', key, string.format('%d', fence), 'EX', given_up_fence.TTL_SEC)
end

-- The tick's fence, nil when it has none.
function given_up_fence.read(tick)
  return tonumber(redis.call('GET', given_up_fence.key(tick)))
end

-- Whether a call numbered `seq` of `tick` lies below its fence (false when it has none).
function given_up_fence.below(tick, seq)
  local fence = given_up_fence.read(tick)
  return fence ~= nil and seq < fence
end

-- Finish's: the fence past its own number, so a later copy of it is below it too. XX: only a tick
-- that has a fence gets one (a finish never makes one), and its day starts again from here.
function given_up_fence.raise(tick, seq)
  redis.call('SET', given_up_fence.key(tick), string.format('%d', seq + 1), 'XX', 'EX', given_up_fence.TTL_SEC)
end

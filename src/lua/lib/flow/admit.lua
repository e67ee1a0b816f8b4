-- The fetch's decisions on a chunk that holds flow jobs (lib/flow/flow.lua,
-- called by lib/tick/fetch-jobs.lua), in three steps: classify the chunk
-- (lib/flow/chunk.lua), decide per job, oldest first (lib/flow/decide.lua),
-- and commit what the call took and set aside. All of it runs in one script,
-- so no other tick sees a slot half taken, and a replayed fetch is answered
-- from the first run's reply (lib/tick/replay-call.lua): none of it runs twice.
-- @include lib/common/prefix-keys.lua
-- @include lib/flow/read.lua
-- @include lib/tick/restart-hold.lua

local function flow_admit(F)
  local fkey = F.key
  local FENCE = P .. 'flow:fence'

  -- The fence counter's value before this call's first admit: the k-th
  -- flow job the call's reply holds has fence first_fence + k (the client
  -- counts them, src/flow/fences.ts); last_fence is the last handed out.
  local first_fence, last_fence
  function F.first_fence()
    return first_fence
  end

  local function counted_by_name(key, counts)
    for name, n in pairs(counts) do redis.call('HINCRBY', key, name, n) end
  end

  -- Parked per key in one push a stretch, the oldest deepest (at the
  -- right). The key's job sent on may be among them, pushed to the head
  -- of its queue before a holder put back or resurrected took the slot: it
  -- goes to the oldest end, to be sent on next, and is forgotten as sent.
  local function push_parked(key, list, unsent)
    unsent[#unsent + 1] = key
    local first = 1
    if F.is_sent(key, list[1]) then
      redis.call('RPUSH', fkey('park', key), list[1])
      first = 2
    end
    for from = first, #list, 1000 do
      redis.call('LPUSH', fkey('park', key), unpack(list, from, math.min(from + 999, #list)))
    end
    redis.call('SADD', P .. 'flow:parked', key)
    F.parked_now()
  end

  -- Writes what the decisions left in `call`: the slots taken, the fences,
  -- the park lists and the counts per job name.
  local function commit(call)
    F.write_takes(call.view)
    if call.fence > last_fence then
      fences_taken(FENCE, call.fence)
      last_fence = call.fence
    end
    for key, list in pairs(call.parked) do push_parked(key, list, call.unsent) end
    F.unsend(call.unsent)
    counted_by_name(P .. 'flow:waiting', call.parked_by_name)
    counted_by_name(P .. 'flow:locks', call.slots_by_name)
  end

  -- bench/flow.ts (a): a chunk all of one shape `one` on distinct keys, all
  -- free, starts whole with one MSETNX and none of the steps below (up to
  -- 1000 jobs, so the MSETNX's arguments fit Lua's stack). The jobs, oldest
  -- first, and their shape; nil when the chunk is not such (nothing written).
  local function start_distinct_free(tick, items, room)
    local n = #items
    if n > room or n > 1000 or not is_flow(items[n]) or restart.held(now_ms()) then return nil end
    local shape = F.descriptor(items[n])
    if not (shape and shape.one) then return nil end
    local head = F.shape_head(shape)
    local key_at = #head + 1
    local jobs, keys, seen = {}, {}, {}
    for k = 1, n do
      local job = items[n + 1 - k]
      local key_end = string.find(job, head, 1, true) == 1 and string.find(job, '|', key_at, true)
      if not key_end or key_end == key_at then return nil end
      local key = string.sub(job, key_at, key_end - 1)
      if seen[key] then return nil end
      seen[key], jobs[k], keys[k] = true, job, key
    end
    if not F.take_all_free(keys, tick) then return nil end
    return jobs, shape
  end

  -- Admits up to `room` jobs of `items` (LRANGE order: newest first),
  -- oldest first; the rest of those looked at are set aside. Returns the
  -- jobs that start, oldest first, how many were set aside, and how many
  -- go back to the queue: items[1] to items[unread], newest first, once it
  -- returns (it moves them to the front).
  function F.admit(tick, items, room)
    if not last_fence then
      last_fence = last_fence_of(FENCE)
      first_fence = last_fence
    end
    local started, shape = start_distinct_free(tick, items, room)
    if started then
      last_fence = last_fence + #started
      fences_taken(FENCE, last_fence)
      redis.call('HINCRBY', P .. 'flow:locks', shape.name, #started)
      return started, 0, 0
    end
    local chunk = F.classify_chunk(items)
    local call = {
      tick = tick, now = now_ms(), view = F.view(chunk.singles, chunk.index), fence = last_fence,
      parked = {}, unsent = {}, parked_by_name = {}, slots_by_name = {}, went_back = {},
    }
    local kept, aside, back = {}, 0, {}
    for at, text in ipairs(chunk.texts) do
      local class = chunk.classes[at]
      if #kept < room then
        if F.decide(call, class, text) then
          kept[#kept + 1] = text
        else
          aside = aside + 1
        end
      elseif F.park_past_batch(call, class, text) then
        aside = aside + 1
      else
        back[#back + 1] = text
      end
    end
    commit(call)
    for i = 1, #back do items[#back + 1 - i] = back[i] end
    return kept, aside, #back
  end
end

-- The ack's side of flow control (lib/flow/flow.lua): a flow job that left
-- its tick's inproc list frees its slots and ends or takes back its claims.
-- @include lib/common/prefix-keys.lua

local function flow_settle(F)
  local fkey = F.key

  -- Unique keys settled in this call and the ticks that held them, freed
  -- at once by F.flush(), and slots settled per name. A tick whose lease
  -- is held still owns every slot it took (only a lease gone lets another
  -- take them: F.full's sweep, lib/tick/resurrect-dead-ticks.lua), so its
  -- releases need no read (`trusted`); any other's (a lease lost, a dead
  -- tick's resurrection) are checked against the owners first.
  local keys, ticks, freed_by_name, trusted = {}, {}, {}, true

  local function count_freed(name, n)
    freed_by_name[name] = (freed_by_name[name] or 0) + n
  end

  local function free_later(key, tick)
    keys[#keys + 1], ticks[#ticks + 1] = key, tick
  end

  function F.flush()
    for from = 1, #keys, 1000 do
      local batch = { unpack(keys, from, math.min(from + 999, #keys)) }
      if not trusted then batch = F.still_owned(batch, { unpack(ticks, from, math.min(from + 999, #ticks)) }) end
      F.free_unique(batch)
    end
    keys, ticks, trusted = {}, {}, true
    for name, n in pairs(freed_by_name) do redis.call('HINCRBY', P .. 'flow:locks', name, -n) end
    freed_by_name = {}
  end

  -- A flow job left `tick`'s inproc list: kind 's' succeeded, 'd' dead,
  -- 'x' discarded, 'r' retry, 'q' not started, 'i' interrupted (and a
  -- resurrection, as 'q'). `held`: the tick's lease is held (its slots are
  -- its own). Its slots are freed (unique keys' by F.flush(), which the
  -- caller runs once it settled all, or at once where order matters); the
  -- until-executed claim ends when it succeeded or is gone for good; a
  -- coalesce job put back waits again, so it takes the wait claim back if
  -- it is free.
  function F.settle(tick, job, kind, held)
    if not held then trusted = false end
    local shape, keys_text, jid = F.descriptor(job)
    if not shape then return end
    if shape.one then
      free_later(keys_text, tick)
      count_freed(shape.name, 1)
      return
    end
    local t = F.read(job)
    if not t then return end
    for _, lock in ipairs(t.locks) do
      if lock.unique then
        free_later(lock.key, tick)
      else
        F.release(lock.key, tick .. ' ' .. jid)
      end
    end
    if #t.locks > 0 then count_freed(t.name, #t.locks) end
    local claim = t.claim and fkey('claim', t.claim)
    if claim and (kind == 's' or kind == 'd' or kind == 'x') and redis.call('GET', claim) == jid then redis.call('DEL', claim) end
    if t.wait and (kind == 'q' or kind == 'i') then redis.call('SET', fkey('wait', t.wait), jid, 'NX') end
  end

  -- F.settle of the `n` flow jobs of `jobs`, all succeeded (an ack's
  -- successes, freed together by the caller's F.flush()).
  function F.settle_succeeded(tick, jobs, n, held)
    for i = 1, n do F.settle(tick, jobs[i], 's', held) end
  end
end

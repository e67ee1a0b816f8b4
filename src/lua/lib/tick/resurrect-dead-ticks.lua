-- @eager: a tick with nothing to do calls it; made at once, it costs no loader (scripts/lua-lazy.mjs).
-- Resurrect pass (reliable fetch, after sidekiq-ultimate): a tick whose lease
-- key `tick:ID` is gone is dead; the jobs left in its `inproc:ID:QUEUE` lists
-- go back to the head of their queues. Only the job the tick ran alone
-- (`solo`, lib/tick/run-solo.lua) is known to have been running: it alone is counted
-- in `resurrections` (by job string), so fetch can spot a poison job that
-- keeps killing its tick. Every other job may have been running or only
-- fetched: it becomes a suspect, run alone next time, so that one poison
-- job never condemns the jobs fetched with it.
-- A flow job frees the slots the dead tick held for it (lib/flow/flow.lua).
-- A job marked cancelled (lib/cancel/read-cancel-marks.lua) is not put back:
-- it is recorded cancelled (lib/cancel/record-cancelled.lua).
-- Its registration is removed only once all its lists are empty, and once
-- it holds no ordered id (lib/ordered/resurrect-ids.lua, counted in the budget).
--
-- Safe with concurrent ticks and replays: the whole pass is one script and
-- moves only what it finds (run again, it finds nothing more to move); a lock
-- (`resurrector`, owned by one tick for a while) keeps the other ticks from
-- repeating the scan. A live tick cannot fetch into a list being drained:
-- fetch refuses to run once its own lease is gone.
-- A solo record 'p~…' (a job not valid UTF-8, lib/tick/run-solo.lua) written
-- by a newer tick reads, to an older resurrector, as naming no job of the
-- list: its job is put back as a suspect, uncounted, as before such records.
-- Bounded: at most `limit` jobs and `scan_limit` registry entries per call;
-- the HSCAN cursor is kept so the next call resumes where this one stopped.
-- @include lib/common/prefix-keys.lua
-- @include lib/order/read-order.lua
-- @include lib/flow/read.lua
-- @include lib/flow/flow.lua
-- @include lib/cancel/read-cancel-marks.lua
-- @include lib/cancel/record-cancelled.lua
-- @include lib/order/queue-job.lua
-- @include lib/ordered/resurrect-ids.lua
-- @include lib/common/utf8-as-read.lua

-- Returns resurrected (put back; jobs recorded cancelled are not counted),
-- more (1 when the registry scan did not finish).
local function resurrect(tick, limit, lock_ms, scan_limit)
  if limit <= 0 then return 0, 0 end
  -- Whether the solo record `alone` names `job`: by its text, or by reference
  -- as acks name it (lib/tick/ack-jobs.lua): for a large job '#' .. its SHA-1,
  -- for one not valid UTF-8 '~' .. the SHA-1 of its text as read
  -- (lib/common/utf8-as-read.lua); hashed only when the record is one. A local
  -- of resurrect: begin.lua's main chunk holds at most 200 locals, and has no
  -- room for it beside utf8_as_read.
  local function is_solo(alone, job)
    if not alone then return false end
    if alone == 'p' .. job then return true end
    if #alone ~= 42 then return false end
    if string.find(alone, '^p#%x+$') then
      return (#job > 1024 or string.find(job, '^[#~]%x+$') ~= nil) and alone == 'p#' .. redis.sha1hex(job)
    end
    return string.find(alone, '^p~%x+$') ~= nil and string.find(job, '[\128-\255]') ~= nil
      and alone == 'p~' .. redis.sha1hex(utf8_as_read(job))
  end

  local lock = P .. 'resurrector'
  local holder = redis.call('GET', lock)
  if holder and holder ~= tick then return 0, 0 end
  redis.call('SET', lock, tick, 'PX', lock_ms)

  local cursor_key = P .. 'resurrector:cursor'
  local cursor = redis.call('GET', cursor_key) or '0'
  local budget, scanned, cancelled_n = limit, 0, 0
  local solo = P .. 'solo'
  repeat
    local page = redis.call('HSCAN', P .. 'ticks', cursor, 'COUNT', 50)
    cursor = page[1]
    local entries = page[2]
    for j = 1, #entries, 2 do
      local id = entries[j]
      scanned = scanned + 1
      if budget > 0 and redis.call('EXISTS', P .. 'tick:' .. id) == 0 then
        local alone = redis.call('HGET', solo, id)
        local marks = cancel_marks(id)
        local left = 0
        for _, queue in ipairs(registered_queues(entries[j + 1])) do
          local src = inproc_key(id, queue)
          while budget > 0 do
            -- A flow job frees its slots first: the parked job that sends to
            -- the head of the queue goes behind it, older, which runs first.
            local job = redis.call('LINDEX', src, 0)
            if not job then break end
            local cancelled = marked_jid(marks, job)
            if cancelled then
              if is_flow(job) then flow().settle(id, job, 'x') end
              redis.call('LPOP', src)
              forget_mark(id, cancelled)
              record_cancelled(job, 'running', now_ms())
              cancelled_n = cancelled_n + 1
            else
              if is_flow(job) then
                flow().settle(id, job, 'q')
                flow_lib.flush()
              end
              redis.call('LPOP', src)
              order.push(queue, job, true)
              redis.call('HSET', P .. 'suspects', job, 1)
              redis.call('SADD', P .. 'queues', queue)
            end
            if is_solo(alone, job) then
              if not cancelled then redis.call('HINCRBY', P .. 'resurrections', job, 1) end
              redis.call('HDEL', solo, id)
              alone = nil
            end
            budget = budget - 1
          end
          left = left + redis.call('LLEN', src)
        end
        local held, ordered_cancelled
        budget, held, ordered_cancelled = resurrect_ordered(id, budget, alone)
        left = left + held
        cancelled_n = cancelled_n + ordered_cancelled
        if left == 0 then
          redis.call('DEL', cancel_marks_key(id))
          redis.call('HDEL', P .. 'ticks', id)
          redis.call('HDEL', solo, id)
        end
      end
    end
  until cursor == '0' or budget == 0 or scanned >= scan_limit
  if flow_lib then flow_lib.flush() end
  redis.call('SET', cursor_key, cursor)
  local more = 0
  if cursor ~= '0' then more = 1 end
  return limit - budget - cancelled_n, more
end

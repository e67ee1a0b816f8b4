-- Flow control (src/flow/): unique jobs, per-key concurrency, rate limits.
-- A flow job's JSON opens with its descriptor, written by the client
-- (src/job/flow-descriptor.ts): {"tickq_flow":"SHAPE|KEYS|JID",… where SHAPE
-- is "NAME QUEUE [u] [l LIMIT]… [r LIMIT PERIOD_MS] [c] [w]" and KEYS one
-- key a tag: `u` a unique slot, `l` a slot of a key with at most LIMIT
-- holders, `r` a rate limit, `c` the until-executed claim, `w` the coalesce
-- wait claim. Every word is %XX-escaped (no space, `|`, quote or
-- backslash in any), so a flow job is read with a few plain finds
-- (lib/flow/read.lua), never decoded as JSON.
-- Keys (under P):
--   flow:owner:KEY     string TICK: the holder of a unique KEY (u:…, one slot)
--   flow:held:KEY      hash   "TICK JID" → "FENCE": who holds a slot of any other key
--   flow:park:KEY      list   jobs waiting for a slot of KEY (oldest right)
--   flow:parked        set    KEYs whose park list may hold jobs (the jobs
--                             API looks through them: locate.lua)
--   flow:rate:KEY      zset   fence → start ms: starts in the last period
--   flow:rnext:KEY     string the last due handed to a deferred job
--   flow:claim:KEY     string jid of the job queued or running (until-executed)
--   flow:wait:KEY      string jid of the job waiting to run (coalesce)
--   flow:fence         string the last fence handed out (lib/common/prefix-keys.lua)
--   flow:locks         hash   NAME → slots its jobs hold
--   flow:waiting       hash   NAME → its jobs parked on a busy key
--   flow:deferred:NAME zset   jid → due ms of jobs a rate limit pushed later
-- A slot is held by a tick, and only while the job sits in that tick's
-- inproc list: the ack that takes the job out (lib/tick/ack-jobs.lua)
-- frees it, the resurrection that moves it back
-- (lib/tick/resurrect-dead-ticks.lua) frees it, and a slot whose tick's
-- lease is gone is freed by the first fetch that finds the key full. Every
-- freed slot moves the oldest parked job back to the head of its queue, so
-- a parked job waits only while its key is full.
--
-- The functions are made on first use (flow()): every entry script runs
-- its top level on each call, and a plain call makes none of them. Each
-- part is a function that adds its own to the table F: lib/flow/read.lua
-- (reading a job's descriptor), lib/flow/sent.lua (the job sent on for a
-- key), lib/flow/slots.lua (holding and freeing slots, parking),
-- lib/flow/settle.lua (the ack's side), lib/flow/chunk.lua,
-- lib/flow/decide.lua and lib/flow/admit.lua (the fetch: classify a chunk,
-- decide per job, commit), lib/flow/claims.lua (unique claims at enqueue
-- and in the jobs API). This library includes them all: a script that uses
-- flow control includes this one (and lib/flow/read.lua for is_flow).
-- @include lib/flow/read.lua
-- @include lib/flow/sent.lua
-- @include lib/flow/slots.lua
-- @include lib/flow/settle.lua
-- @include lib/flow/chunk.lua
-- @include lib/flow/decide.lua
-- @include lib/flow/admit.lua
-- @include lib/flow/claims.lua

local flow_lib
local function flow()
  if flow_lib then return flow_lib end
  local F = {}
  flow_read(F)
  flow_sent(F)
  flow_slots(F)
  flow_settle(F)
  flow_chunk(F)
  flow_decide(F)
  flow_admit(F)
  flow_claims(F)
  flow_lib = F
  return F
end

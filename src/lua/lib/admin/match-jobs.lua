-- Matching stored jobs without decoding them (lib/common/edit-job-text.lua reads one
-- field as text). The jobs API finds a job by jid and filters listings by
-- name and queue this way, so a job cjson would refuse is still found.
-- @include lib/common/edit-job-text.lua

-- The raw text (escapes as written) of top-level string field `name`; nil
-- when absent or not a string.
local function string_field(job, name)
  local kind, text = top_field(job, name)
  if kind == 'string' then return text end
  return nil
end

-- Does `job` carry top-level "jid" `jid` (as written inside its JSON
-- string)? A plain substring search rules out nearly every job first.
local function has_jid(job, jid)
  return jid ~= '' and string.find(job, '"' .. jid .. '"', 1, true) ~= nil and string_field(job, 'jid') == jid
end

-- The jid of `job` as written, '' when it has none.
local function jid_of(job)
  return string_field(job, 'jid') or ''
end

-- Does `job` pass the filters: `name` (its "class", as written; '' any)
-- and `queue` (a queue name; '' any)?
local function job_matches(job, name, queue)
  if name ~= '' and string_field(job, 'class') ~= name then return false end
  if queue ~= '' and queue_of(job) ~= queue then return false end
  return true
end

-- A glob pattern (SCAN's MATCH) for the text `s` anywhere in a member.
local function glob_around(s)
  return '*' .. string.gsub(s, '[%*%?%[%]\\]', '\\%0') .. '*'
end

-- Reading one field of a job without decoding it. cjson refuses what other
-- JSON writers produce (a lone surrogate "\ud800", nesting past ~1,000), and
-- re-encoding would change the job's bytes (2**53+1, 1.0, [] → {}), so no
-- script decodes user data: this walks the top level of the object text,
-- skipping strings and nested values, to find one string field.

-- Index just past the string that opens at `i` (s[i] is '"'), or nil.
local function past_string(s, i)
  local j = i + 1
  while true do
    local q = string.find(s, '["\\]', j)
    if not q then return nil end
    if string.byte(s, q) == 92 then j = q + 2 else return q + 1 end
  end
end

-- The raw text of top-level string field `name` (escapes not decoded);
-- nil when absent or not a string; false when `s` is not a JSON object.
local function top_string(s, name)
  local i = string.find(s, '%S')
  if not i or string.byte(s, i) ~= 123 then return false end
  local depth, expect_key, key = 1, true, nil
  i = i + 1
  while true do
    local j = string.find(s, '[%[%]{}",]', i)
    if not j then return false end
    local c = string.byte(s, j)
    if c == 34 then
      local e = past_string(s, j)
      if not e then return false end
      if depth == 1 then
        if expect_key then
          key, expect_key = string.sub(s, j + 1, e - 2), false
        elseif key == name then
          return string.sub(s, j + 1, e - 2)
        end
      end
      i = e
    elseif c == 123 or c == 91 then
      depth, i = depth + 1, j + 1
    elseif c == 125 or c == 93 then
      depth, i = depth - 1, j + 1
      if depth == 0 then return nil end
    else
      if depth == 1 then expect_key = true end
      i = j + 1
    end
  end
end

-- The queue a job belongs to, or nil and why it cannot be routed. A job
-- with no queue field is Sidekiq's "default"; one that is not a JSON object,
-- or whose queue is empty or unreadable, must not land in another queue.
local function queue_of(job)
  local raw = top_string(job, 'queue')
  if raw == false then return nil, 'job is not a JSON object' end
  if raw == nil then return 'default' end
  if string.find(raw, '\\', 1, true) then
    local ok, decoded = pcall(cjson.decode, '"' .. raw .. '"')
    if not ok or type(decoded) ~= 'string' then return nil, 'job queue name cannot be read' end
    raw = decoded
  end
  if raw == '' or string.find(raw, '%s') then return nil, 'job queue name is empty or holds whitespace' end
  return raw
end

-- The dead-set entry of a job that cannot even be routed: Sidekiq-shaped,
-- the original text kept whole in "raw".
local function unroutable_entry(job, reason, now_sec)
  return '{"class":"TickqMalformedJob","args":[],"jid":"","queue":"","raw":' .. cjson.encode(job)
    .. ',"error_class":"TickqMalformedJob","error_message":' .. cjson.encode(reason)
    .. ',"failed_at":' .. string.format('%.3f', now_sec) .. '}'
end

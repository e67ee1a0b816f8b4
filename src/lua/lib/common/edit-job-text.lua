-- Reading or setting one field of a job without decoding it. cjson refuses
-- what other JSON writers produce (a lone surrogate "\ud800", nesting past
-- ~1,000), and re-encoding would change the job's bytes (2**53+1, 1.0,
-- [] → {}), so no script decodes user data: this walks the top level of the
-- object text, skipping strings and nested values, to find one field.

-- Index just past the string that opens at `i` (s[i] is '"'), or nil.
local function past_string(s, i)
  local j = i + 1
  while true do
    local q = string.find(s, '["\\]', j)
    if not q then return nil end
    if string.byte(s, q) == 92 then j = q + 2 else return q + 1 end
  end
end

-- A key or string's text with its escapes decoded, or nil if it has none
-- that cjson can read.
local function unescaped(raw)
  if not string.find(raw, '\\', 1, true) then return raw end
  local ok, decoded = pcall(cjson.decode, '"' .. raw .. '"')
  if ok and type(decoded) == 'string' then return decoded end
  return nil
end

-- Index just past the array or object that opens at `i`, or nil.
local function past_nested(s, i)
  local depth = 0
  while true do
    local j = string.find(s, '[%[%]{}"]', i)
    if not j then return nil end
    local c = string.byte(s, j)
    if c == 34 then
      i = past_string(s, j)
      if not i then return nil end
    else
      if c == 123 or c == 91 then depth = depth + 1 else depth = depth - 1 end
      i = j + 1
      if depth == 0 then return i end
    end
  end
end

-- What a top-level field `name` holds, read as JSON.parse and Ruby read it
-- (escaped keys decoded; a repeated key: the last one wins). Returns
-- 'string' and its raw text (escapes not decoded), 'number' and its text,
-- 'null', 'other' (true, false, an array, an object), nil when absent, or
-- false when `s` is not a JSON object; then where its value starts and the
-- index just past it.
local function top_field(s, name)
  local i = string.find(s, '%S')
  if not i or string.byte(s, i) ~= 123 then return false end
  local depth, expect_key = 1, true
  local kind, text, from, to = nil, nil, nil, nil
  i = i + 1
  while true do
    local j = string.find(s, '[%[%]{}",]', i)
    if not j then return false end
    local c = string.byte(s, j)
    if c == 34 then
      local e = past_string(s, j)
      if not e then return false end
      i = e
      if depth == 1 and expect_key then
        expect_key = false
        if unescaped(string.sub(s, j + 1, e - 2)) == name then
          local colon = string.find(s, ':', e, true)
          local v = colon and string.find(s, '%S', colon + 1)
          if not v then return false end
          local first = string.byte(s, v)
          if first == 34 then
            local ve = past_string(s, v)
            if not ve then return false end
            kind, text, i = 'string', string.sub(s, v + 1, ve - 2), ve
          elseif string.find(s, '^[%-%d]', v) then
            text = string.match(s, '^%-?[%d%.eE%+%-]+', v)
            kind, i = 'number', v + #text
          elseif string.find(s, '^null', v) then
            kind, i = 'null', v + 4
          else
            -- an array or object is skipped whole; true/false end at , } or space
            local ve = (first == 123 or first == 91) and past_nested(s, v) or string.find(s, '[,}%s]', v)
            if not ve then return false end
            kind, text, i = 'other', nil, ve
          end
          from, to = v, i
        end
      end
    elseif c == 123 or c == 91 then
      depth, i = depth + 1, j + 1
    elseif c == 125 or c == 93 then
      depth, i = depth - 1, j + 1
      if depth == 0 then return kind, text, from, to end
    else
      if depth == 1 then expect_key = true end
      i = j + 1
    end
  end
end

-- The queue a job belongs to, or nil and why it cannot be routed. A job
-- with no queue field (or null) is Sidekiq's "default"; a number is routed
-- by its text, as JS's String() and Ruby's to_s would. One that is not a
-- JSON object, or whose queue is empty, unreadable or not a string, must
-- not land in another queue.
local function queue_of(job)
  local kind, raw = top_field(job, 'queue')
  if kind == false then return nil, 'job is not a JSON object' end
  if kind == nil or kind == 'null' then return 'default' end
  if kind == 'other' then return nil, 'job queue is not a string' end
  raw = unescaped(raw)
  if not raw then return nil, 'job queue name cannot be read' end
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

-- `s` with the top-level field `name` set to `value` (JSON text): the value
-- of its last occurrence (the one readers keep) replaced in place, or the
-- field appended before the closing brace; every other byte is kept. nil
-- when `s` is not a JSON object.
local function with_field(s, name, value)
  local kind, _, from, to = top_field(s, name)
  if kind == false then return nil end
  if kind then return string.sub(s, 1, from - 1) .. value .. string.sub(s, to) end
  local close = string.find(s, '}%s*$')
  if not close then return nil end
  local sep = ','
  if string.find(s, '^%s*{%s*}%s*$') then sep = '' end
  return string.sub(s, 1, close - 1) .. sep .. '"' .. name .. '":' .. value .. string.sub(s, close)
end

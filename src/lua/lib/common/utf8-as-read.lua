-- A job's bytes as a client reads them. A job pushed by another client
-- (Sidekiq from Ruby, redis-cli, a Buffer) may hold bytes that are not valid
-- UTF-8; every adapter decodes a reply to a JS string as the WHATWG decoder
-- does (TextDecoder, Node's Buffer), each maximal subpart of an ill-formed
-- sequence turned into U+FFFD, so the text a tick holds is not the stored
-- one. The tick names such a job by '~' .. the SHA-1 of its text as read
-- (src/tick/passes/ack-refs.ts); this gives Lua the same text from the bytes.
-- Pure: no key is read or written, so a replay or a concurrent tick reads
-- the same text. At maxmemory it writes nothing: the copy it makes (only of a
-- job that is not valid UTF-8) lives in the script's memory for the call.
-- Its one local is the function (its constant is inline): an entry script's
-- main chunk holds at most 200 locals, and begin.lua has room for few.

-- `s` with each ill-formed sequence replaced as the WHATWG decoder replaces
-- it; `s` itself (no copy) when it is valid UTF-8. Only bytes >= 0x80 are
-- looked at, one sequence at a time.
local function utf8_as_read(s)
  local i = string.find(s, '[\128-\255]')
  if not i then return s end
  local pieces, n, from = {}, 0, 1
  while i do
    local b = string.byte(s, i)
    -- Continuation bytes the lead asks for, and the range of the first one
    -- (what rules out overlong forms, surrogates and code points past U+10FFFF).
    local need, lo, hi = 0, 128, 191
    if b >= 194 and b <= 223 then
      need = 1
    elseif b >= 224 and b <= 239 then
      need = 2
      if b == 224 then lo = 160 elseif b == 237 then hi = 159 end
    elseif b >= 240 and b <= 244 then
      need = 3
      if b == 240 then lo = 144 elseif b == 244 then hi = 143 end
    end
    local j, ok = i + 1, need > 0
    for _ = 1, need do
      local c = string.byte(s, j)
      if not c or c < lo or c > hi then
        ok = false
        break
      end
      lo, hi = 128, 191
      j = j + 1
    end
    if not ok then
      -- i .. j - 1 is one maximal subpart: one U+FFFD; the byte at j is read again.
      pieces[n + 1], pieces[n + 2] = string.sub(s, from, i - 1), '\239\191\189' -- U+FFFD
      n = n + 2
      from = j
    end
    i = string.find(s, '[\128-\255]', j)
  end
  if n == 0 then return s end
  pieces[n + 1] = string.sub(s, from)
  return table.concat(pieces)
end

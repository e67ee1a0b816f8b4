-- Debounce windows (src/debounce/): a debounced job's text ends with
-- `,"tickq_debounce":KEY}` (debounce.lua). A script that takes a job out of
-- `schedule` (promotion, admin run-now/delete/clear, cancel) closes the window of
-- its key when the window still holds this very text, so the window lives
-- exactly as long as its job waits, however rarely ticks run. Any other
-- job costs one byte compare: its text does not end with '"}'.
-- Needs lib/common/edit-job-text.lua (top_field, unescaped) in the entry script.
-- @include lib/common/prefix-keys.lua
-- @include lib/common/edit-job-text.lua

local DEBOUNCE_FIELD = ',"tickq_debounce":"'
local QUOTE = string.byte('"')

-- The window key of a debounced job's text; nil for any other job.
local function debounce_window_of(job)
  if string.byte(job, -2) ~= QUOTE or not string.find(job, DEBOUNCE_FIELD, 1, true) then return nil end
  local kind, raw = top_field(job, 'tickq_debounce')
  if kind ~= 'string' then return nil end
  local key = unescaped(raw)
  return key and P .. 'debounce:' .. key
end

local function close_debounce_window(job)
  local window = debounce_window_of(job)
  if window and redis.call('HGET', window, 'text') == job then redis.call('DEL', window) end
end

-- Debounce windows (src/debounce/): a debounced job's text ends with
-- `,"tickq_debounce":KEY}` (debounce.lua). A script that takes a job out of
-- `schedule` (promotion, admin run-now/delete/clear, cancel) closes the window of
-- its key when the window still holds this very text, so the window lives
-- exactly as long as its job waits, however rarely ticks run. Any other
-- job costs one byte compare: its text does not end with '"}'.
-- Needs lib/common/edit-job-text.lua (top_field, unescaped) in the entry script.

local DEBOUNCE_FIELD = ',"tickq_debounce":"'
local QUOTE = string.byte('"')

local function close_debounce_window(job)
  if string.byte(job, -2) ~= QUOTE or not string.find(job, DEBOUNCE_FIELD, 1, true) then return end
  local kind, raw = top_field(job, 'tickq_debounce')
  if kind ~= 'string' then return end
  local key = unescaped(raw)
  if not key then return end
  local window = P .. 'debounce:' .. key
  if redis.call('HGET', window, 'text') == job then redis.call('DEL', window) end
end

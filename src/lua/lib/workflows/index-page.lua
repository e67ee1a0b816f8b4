-- A page of an index of runs (a zset), newest first, from `offset` on: row(id)
-- answers the page's entry for a run (nil skips it) and whether the page is
-- full already (a byte bound). At most max(limit, 1000) ids are read a call,
-- so a page can be short with a next offset. Answers { next, rows }, next
-- -1 at the end of the index.

local function index_page(index, offset, limit, row)
  local scan = math.max(limit, 1000)
  local ids = redis.call('ZREVRANGE', index, offset, offset + scan - 1)
  local rows, next = {}, -1
  for k, id in ipairs(ids) do
    local entry, full = row(id)
    if entry then
      rows[#rows + 1] = entry
      if #rows == limit or full then
        next = offset + k
        break
      end
    end
  end
  if next == -1 and #ids == scan then next = offset + scan end
  if next ~= -1 and redis.call('ZCARD', index) <= next then next = -1 end
  return { next, rows }
end

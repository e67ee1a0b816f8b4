-- How many jobs wait in a queue (lib/order/read-order.lua's layout): its
-- plain list, its priority set and its groups' sets. A queue without
-- priorities or groups costs one LLEN and one EXISTS.
-- @include lib/common/prefix-keys.lua
local function queued_size(queue)
  local size = redis.call('LLEN', P .. 'queue:' .. queue)
  if redis.call('EXISTS', P .. 'prio:' .. queue, P .. 'groups:' .. queue) == 0 then return size end
  size = size + redis.call('ZCARD', P .. 'prio:' .. queue)
  for _, group in ipairs(redis.call('LRANGE', P .. 'groups:' .. queue, 0, -1)) do
    if group ~= '' then size = size + redis.call('ZCARD', P .. 'group:' .. queue .. ' ' .. group) end
  end
  return size
end

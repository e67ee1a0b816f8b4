// Where every job under a prefix is, read in one script (atomic, so a job
// moving between two places cannot be counted twice or missed): jid → the
// keys holding it. Lists and sorted sets only; test use only.
import type { Redis } from "ioredis";

const SCRIPT = `
local out = {}
local cursor = '0'
repeat
  local page = redis.call('SCAN', cursor, 'MATCH', ARGV[1] .. '*', 'COUNT', 1000)
  cursor = page[1]
  for _, key in ipairs(page[2]) do
    local kind = redis.call('TYPE', key).ok
    local items = {}
    if kind == 'list' then items = redis.call('LRANGE', key, 0, -1) elseif kind == 'zset' then items = redis.call('ZRANGE', key, 0, -1) end
    for _, job in ipairs(items) do
      local ok, decoded = pcall(cjson.decode, job)
      if ok and type(decoded) == 'table' and type(decoded.jid) == 'string' then
        out[#out + 1] = decoded.jid
        out[#out + 1] = key
      end
    end
  end
until cursor == '0'
return out`;

export async function whereJobs(redis: Redis, prefix: string): Promise<Map<string, string[]>> {
  const flat = (await redis.eval(SCRIPT, 0, prefix)) as string[];
  const where = new Map<string, string[]>();
  for (let i = 0; i < flat.length; i += 2) {
    const keys = where.get(flat[i]!) ?? [];
    keys.push(flat[i + 1]!.slice(prefix.length));
    where.set(flat[i]!, keys);
  }
  return where;
}

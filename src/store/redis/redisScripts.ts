/**
 * The shared store's server-side scripts (src/store/redis/redisAccounts.ts, redisMeter.ts,
 * redisBlacklist.ts): their Lua text and the commands that run them. Each script is defined once
 * per connection with defineCommand (redisConnection.ts), so it is sent once and then run by its
 * SHA; each touches only keys of one hash tag (one Redis Cluster slot).
 */
import type { Cluster, Redis } from 'ioredis';

/** Keys of the rate window's sorted sets outlive the window by this much (then Redis drops them). */
const RATE_KEY_SLACK_MS = 10_000;

/**
 * The sliding window as a Lua function (the embedded SlidingRateWindow's rule): admitted when fewer
 * than `limit` instants lie in (now - window, now]; an admitted request records its instant, a
 * refused one takes no place. `now` is the request's clock, or the Redis server's when given as ''.
 */
const SLIDING_WINDOW_LUA = `
local function clock(given)
  if given ~= '' then return tonumber(given) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end

-- The window at now: instants that left it dropped. Answers the instant a request admitted now
-- records, how many instants the window holds and its newest instant (nil when it holds none).
local function windowAt(key, now, window)
  local newest = redis.call('ZRANGE', key, -1, -1, 'WITHSCORES')
  local at = now
  local last = nil
  if newest[2] ~= nil then
    last = tonumber(newest[2])
    if now < last - window then
      -- a clock stepped back by more than the window: the recorded instants say nothing any more
      redis.call('DEL', key)
      last = nil
    elseif last > now then
      -- instants stay ordered: a slightly earlier clock records as the newest instant (stricter)
      at = last
    end
  end
  redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
  local count = redis.call('ZCARD', key)
  if count == 0 then last = nil end
  return at, count, last
end

local function slide(key, now, window, limit, member)
  local at, count = windowAt(key, now, window)
  if limit < 1 or count >= limit then return false end
  -- fewer than limit before this one: the set never holds more than limit instants
  redis.call('ZADD', key, at, member)
  redis.call('PEXPIRE', key, window + ${RATE_KEY_SLACK_MS})
  return true
end
`;

/** Raises an instance's receipt in a day hash to this command's sequence number. */
const RECEIPT_LUA = `
local function receipt(key, field, seq)
  if (tonumber(redis.call('HGET', key, field)) or -1) < tonumber(seq) then redis.call('HSET', key, field, seq) end
end
`;

/**
 * The decisions of a batch of one account's requests (src/store/admissionBatches.ts), made one by
 * one in order, as the sliding window and the quota would make them for the requests alone; the
 * keys are read once and written once for the whole batch. KEYS: rate window, day counters, month
 * counters. ARGV: now ('' = server clock), window ms, rate limit, quota period (day/month), pooled
 * (1/0), quota limit, day TTL ms, month TTL ms, the instance's receipt field, this command's
 * sequence number, the window member prefix; then per request: api, cost, flags (1: consume, the request is
 * not refused already; +2: probe, a HEAD request that takes its place in the window but counts nothing).
 * Answers per request {outcome, used, rate window places left, ms until the window is empty}:
 * outcome 0 admitted, 1 rate_limited, 2 quota_exceeded, 3 refused.
 *
 * The receipt (`seq:<instance>:<connection>` in the day's hash: the last sequence number of that connection the
 * account's day has counted) tells an instance, after an outage, whether a request whose answer was
 * lost in the connection's fall was counted: one connection runs its commands in order.
 */
const ADMIT_SCRIPT = `${SLIDING_WINDOW_LUA}${RECEIPT_LUA}
local now = clock(ARGV[1])
local window = tonumber(ARGV[2])
local limit = tonumber(ARGV[3])
local period = ARGV[4]
local pooled = ARGV[5] == '1'
local quota = tonumber(ARGV[6])

receipt(KEYS[2], ARGV[9], ARGV[10])

local at, inWindow, newest = windowAt(KEYS[1], now, window)

local usedKey = KEYS[3]
if period == 'day' then usedKey = KEYS[2] end
local counted = redis.call('HMGET', usedKey, 'ip', 'blacklist', 'mac')
local used = { ip = tonumber(counted[1]) or 0, blacklist = tonumber(counted[2]) or 0, mac = tonumber(counted[3]) or 0 }
local function usedFor(api)
  if pooled then return used.ip + used.blacklist + used.mac end
  return used[api]
end

local members = {}
local added = { ip = 0, blacklist = 0, mac = 0 }
local admitted = false
local rejected = 0
local answers = {}
for i = 12, #ARGV, 3 do
  local api = ARGV[i]
  local cost = tonumber(ARGV[i + 1])
  local flags = tonumber(ARGV[i + 2])
  local probe = flags >= 2
  local outcome = 0
  if limit < 1 or inWindow >= limit then
    outcome = 1
  else
    -- fewer than limit before this one: the window never holds more than limit instants
    inWindow = inWindow + 1
    newest = at
    members[#members + 1] = at
    members[#members + 1] = ARGV[11] .. ':' .. i
    if flags % 2 ~= 1 then
      outcome = 3
    elseif usedFor(api) + cost > quota then
      outcome = 2
    elseif not probe then
      used[api] = used[api] + cost
      added[api] = added[api] + cost
      admitted = true
    end
  end
  if outcome ~= 0 and not probe then rejected = rejected + 1 end
  answers[#answers + 1] = outcome
  answers[#answers + 1] = usedFor(api)
  answers[#answers + 1] = math.max(0, limit - inWindow)
  if newest == nil then answers[#answers + 1] = 0 else answers[#answers + 1] = newest + window - now end
end

if #members > 0 then
  redis.call('ZADD', KEYS[1], unpack(members))
  redis.call('PEXPIRE', KEYS[1], window + ${RATE_KEY_SLACK_MS})
end
if admitted then
  for api, n in pairs(added) do
    if n > 0 then
      redis.call('HINCRBY', KEYS[2], api, n)
      redis.call('HINCRBY', KEYS[3], api, n)
    end
  end
  redis.call('PEXPIRE', KEYS[3], ARGV[8])
end
if rejected > 0 then redis.call('HINCRBY', KEYS[2], 'rejected', rejected) end
redis.call('PEXPIRE', KEYS[2], ARGV[7])
return answers
`;

/** A sliding window alone (reports per reporter). KEYS: window. ARGV: now, window ms, limit, member. Answers 1 or 0. */
const SLIDE_SCRIPT = `${SLIDING_WINDOW_LUA}
if slide(KEYS[1], clock(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3]), ARGV[4]) then return 1 end
return 0
`;

/**
 * Adds to counter hashes (a rejected request; counts written back after an outage). KEYS: counter
 * hashes, the first the day's. ARGV: the instance's receipt field and sequence number, then per
 * key: field count, ttl ms, field/n pairs.
 */
const ADD_COUNTS_SCRIPT = `${RECEIPT_LUA}
receipt(KEYS[1], ARGV[1], ARGV[2])
local a = 3
for i = 1, #KEYS do
  local fields = tonumber(ARGV[a])
  local ttl = ARGV[a + 1]
  a = a + 2
  for f = 1, fields do
    redis.call('HINCRBY', KEYS[i], ARGV[a], ARGV[a + 1])
    a = a + 2
  end
  redis.call('PEXPIRE', KEYS[i], ttl)
end
return 1
`;

/** Sets KEYS[1] to ARGV[2] only while it still holds ARGV[1]; ARGV[2] '' deletes it (and LREMs ARGV[3] from KEYS[2]). */
const CAS_SCRIPT = `
if redis.call('GET', KEYS[1]) ~= ARGV[1] then return 0 end
if ARGV[2] == '' then
  redis.call('DEL', KEYS[1])
  redis.call('LREM', KEYS[2], 0, ARGV[3])
else
  redis.call('SET', KEYS[1], ARGV[2])
end
return 1
`;

/** Adds a key record when the account exists and has fewer than ARGV[1] keys: 1, or -1 (no account), -2 (limit). */
const ADD_KEY_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return -1 end
if redis.call('LLEN', KEYS[2]) >= tonumber(ARGV[1]) then return -2 end
redis.call('SET', KEYS[3], ARGV[3])
redis.call('RPUSH', KEYS[2], ARGV[2])
return 1
`;

/**
 * Saves one blacklist report of an address. KEYS: the address's reports hash, its facts hash.
 * ARGV: the report as JSON, merge window ms, retention cutoff ms, country, isp ('' = null).
 * A repeat by the same reporter within the merge window of one of its reports merges into the
 * closest one (then the lowest id); reports older than the cutoff are dropped on the way. The
 * country and provider are captured when this report lists the address. The keys expire when the
 * last report leaves the retention window. Answers {merged, the saved report's id, reports...}
 * as id/JSON pairs.
 */
const REPORT_SCRIPT = `
local new = cjson.decode(ARGV[1])
local window = tonumber(ARGV[2])
local cutoff = tonumber(ARGV[3])
local at = new.created_at
local all = redis.call('HGETALL', KEYS[1])
local best, bestId, bestDistance = nil, nil, nil
local listed = false
local lastAt = new.last_at
for i = 1, #all, 2 do
  local id = tonumber(all[i])
  local r = cjson.decode(all[i + 1])
  if r.last_at < cutoff then
    redis.call('HDEL', KEYS[1], all[i])
  else
    listed = true
    if r.last_at > lastAt then lastAt = r.last_at end
    if r.reporter == new.reporter and r.created_at >= at - window and r.created_at <= at + window then
      local d = math.abs(r.created_at - at)
      if best == nil or d < bestDistance or (d == bestDistance and id < bestId) then best, bestId, bestDistance = r, id, d end
    end
  end
end
local savedId = bestId
if best ~= nil then
  best.repeats = best.repeats + 1
  if at < best.created_at then best.created_at = at end
  if at > best.last_at then best.last_at = at end
  if best.message == cjson.null then best.message = new.message end
  redis.call('HSET', KEYS[1], bestId, cjson.encode(best))
else
  savedId = redis.call('HINCRBY', KEYS[2], 'next_id', 1)
  redis.call('HSET', KEYS[1], savedId, ARGV[1])
end
if not listed then
  redis.call('HDEL', KEYS[2], 'country_code', 'isp')
  if ARGV[4] ~= '' then redis.call('HSET', KEYS[2], 'country_code', ARGV[4]) end
  if ARGV[5] ~= '' then redis.call('HSET', KEYS[2], 'isp', ARGV[5]) end
end
local ttl = math.max(1, lastAt - cutoff)
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('PEXPIRE', KEYS[2], ttl)
local out = redis.call('HGETALL', KEYS[1])
table.insert(out, 1, tostring(savedId))
table.insert(out, 1, best ~= nil and 1 or 0)
return out
`;

/**
 * Keys' last use (src/store/keyUse.ts). KEYS: the hash of key id → ISO minute. ARGV: key id / ISO
 * minute pairs. Each is written only over an earlier one (ISO texts of one form order as their
 * instants), so the time never moves backwards whatever order instances write in.
 */
const NOTE_KEY_USE_SCRIPT = `
for i = 1, #ARGV, 2 do
  local stored = redis.call('HGET', KEYS[1], ARGV[i])
  if not stored or stored < ARGV[i + 1] then redis.call('HSET', KEYS[1], ARGV[i], ARGV[i + 1]) end
end
return 1
`;

/**
 * A report in its reporter's index. KEYS: the index. ARGV: member (`<address>#<id>`), the report's
 * last report ms, retention cutoff ms. Members that left the window are dropped on the way; the
 * index expires when its newest report leaves the window.
 */
const INDEX_REPORT_SCRIPT = `
redis.call('ZADD', KEYS[1], 'GT', ARGV[2], ARGV[1])
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', '(' .. ARGV[3])
local newest = redis.call('ZRANGE', KEYS[1], -1, -1, 'WITHSCORES')
if newest[2] ~= nil then redis.call('PEXPIRE', KEYS[1], math.max(1, tonumber(newest[2]) - tonumber(ARGV[3]))) end
return 1
`;

/** Deletes an address's reports and facts. KEYS: reports hash, facts hash. Answers the deleted reports as id/JSON pairs. */
const DELETE_ADDRESS_SCRIPT = `
local all = redis.call('HGETALL', KEYS[1])
redis.call('DEL', KEYS[1], KEYS[2])
return all
`;

/**
 * Withdraws one report of an address. KEYS: the address's reports hash. ARGV: report id, reporter,
 * retention cutoff ms. Only the reporter's own report inside the window is withdrawn. Answers -1
 * when there is none, else how many reports the address keeps. The facts hash stays (its next_id:
 * a report id is never given twice while the address has reports).
 */
const WITHDRAW_REPORT_SCRIPT = `
local json = redis.call('HGET', KEYS[1], ARGV[1])
if not json then return -1 end
local r = cjson.decode(json)
if r.reporter ~= ARGV[2] or r.last_at < tonumber(ARGV[3]) then return -1 end
redis.call('HDEL', KEYS[1], ARGV[1])
return redis.call('HLEN', KEYS[1])
`;

/** One more change of the blacklist. KEYS: the state hash. ARGV: now ms. */
const BUMP_VERSION_SCRIPT = `
redis.call('HSET', KEYS[1], 'changed_at', ARGV[1])
return redis.call('HINCRBY', KEYS[1], 'seq', 1)
`;

/** A daily allowance. KEYS: the counter. ARGV: limit, TTL ms. Answers {allowed, used}. */
const COUNT_DAILY_SCRIPT = `
local used = tonumber(redis.call('GET', KEYS[1])) or 0
if used >= tonumber(ARGV[1]) then return {0, used} end
used = redis.call('INCR', KEYS[1])
redis.call('PEXPIRE', KEYS[1], ARGV[2])
return {1, used}
`;

const UNCOUNT_DAILY_SCRIPT = `
local used = tonumber(redis.call('GET', KEYS[1])) or 0
if used > 0 then return redis.call('DECR', KEYS[1]) end
return 0
`;

interface StoreCommands {
  netlookupAdmit(...args: (string | number)[]): Promise<number[]>;
  netlookupSlide(...args: (string | number)[]): Promise<number>;
  netlookupAddCounts(numberOfKeys: number, ...args: (string | number)[]): Promise<number>;
  netlookupCas(...args: string[]): Promise<number>;
  netlookupAddKey(...args: (string | number)[]): Promise<number>;
  netlookupNoteKeyUse(...args: string[]): Promise<number>;
  netlookupReport(...args: (string | number)[]): Promise<[number, string, ...string[]]>;
  netlookupIndexReport(...args: (string | number)[]): Promise<number>;
  netlookupDeleteAddress(...args: string[]): Promise<string[]>;
  netlookupWithdrawReport(...args: (string | number)[]): Promise<number>;
  netlookupBumpVersion(...args: (string | number)[]): Promise<number>;
  netlookupCountDaily(...args: (string | number)[]): Promise<[number, number]>;
  netlookupUncountDaily(key: string): Promise<number>;
}
/** One Redis (a server, or the master a Sentinel names) or a Redis Cluster, with the store's scripts. */
export type StoreRedis = (Redis | Cluster) & StoreCommands;

/**
 * The store's scripts, sent once per connection and then run by their SHA. On a Cluster each node
 * that answers NOSCRIPT (a replica promoted after a failover never loaded them) is sent the script
 * itself (EVAL), and by their SHA again afterwards.
 */
export function defineStoreCommands(redis: Redis | Cluster): void {
  redis.defineCommand('netlookupAdmit', { numberOfKeys: 3, lua: ADMIT_SCRIPT });
  redis.defineCommand('netlookupSlide', { numberOfKeys: 1, lua: SLIDE_SCRIPT });
  // the number of keys varies: given as the first argument
  redis.defineCommand('netlookupAddCounts', { lua: ADD_COUNTS_SCRIPT });
  redis.defineCommand('netlookupCas', { numberOfKeys: 2, lua: CAS_SCRIPT });
  redis.defineCommand('netlookupAddKey', { numberOfKeys: 3, lua: ADD_KEY_SCRIPT });
  redis.defineCommand('netlookupNoteKeyUse', { numberOfKeys: 1, lua: NOTE_KEY_USE_SCRIPT });
  redis.defineCommand('netlookupReport', { numberOfKeys: 2, lua: REPORT_SCRIPT });
  redis.defineCommand('netlookupIndexReport', { numberOfKeys: 1, lua: INDEX_REPORT_SCRIPT });
  redis.defineCommand('netlookupDeleteAddress', { numberOfKeys: 2, lua: DELETE_ADDRESS_SCRIPT });
  redis.defineCommand('netlookupWithdrawReport', { numberOfKeys: 1, lua: WITHDRAW_REPORT_SCRIPT });
  redis.defineCommand('netlookupBumpVersion', { numberOfKeys: 1, lua: BUMP_VERSION_SCRIPT });
  redis.defineCommand('netlookupCountDaily', { numberOfKeys: 1, lua: COUNT_DAILY_SCRIPT });
  redis.defineCommand('netlookupUncountDaily', { numberOfKeys: 1, lua: UNCOUNT_DAILY_SCRIPT });
}

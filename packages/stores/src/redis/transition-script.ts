import { createHash } from "node:crypto"

/**
 * How every PROJECTING record this store writes ends (`newProjectingInvocation` puts these two
 * fields last). No READY or ERROR record ends so: each ends with its own last field, and a READY
 * record whose raw response is spliced in ends with that response's closing bracket and `}`.
 */
export const PROJECTING_SUFFIX = ',"status":"PROJECTING","evidenceStatus":null}'

/**
 * The whole transition in one atomic script on the record's own key (so it runs unchanged on
 * Redis Cluster): read, check presence, check the stored status is PROJECTING, write the
 * next record keeping the remaining TTL (`KEEPTTL`, Redis >= 6). A compressed value (see
 * encoding.ts) is a terminal record whose status is in its header: never decompressed here.
 *
 * A value ending with {@link PROJECTING_SUFFIX} is taken as PROJECTING without decoding its JSON
 * (most of the script's cost): `GETRANGE` reads just that ending, so the common case copies no
 * record into Lua at all. Anything else (absent, compressed, terminal, corrupt) is read whole and
 * decoded as before.
 *
 * Replies: `0` written, `1` not found, `{2, status}` illegal transition from `status`, `3` the
 * stored value is not a canonical invocation (corrupt). (Integers, not one-element tables: the
 * common reply costs Redis and the client no array.) The store reads a code from an integer or
 * from a table's first element (the `{2, status}` form), so a one-element table reads the same.
 */
export const TRANSITION_LUA = `
local suffix = '${PROJECTING_SUFFIX}'
if redis.call('GETRANGE', KEYS[1], -${PROJECTING_SUFFIX.length}, -1) == suffix then
  redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
  return 0
end
local current = redis.call('GET', KEYS[1])
if not current then return 1 end
if string.sub(current, 1, 4) == '\\0Z1:' then
  local status = string.match(current, '^....(%u+)\\n')
  if status == 'READY' or status == 'ERROR' then return {2, status} end
  return 3
end
local ok, decoded = pcall(cjson.decode, current)
if not ok or type(decoded) ~= 'table' then return 3 end
local status = decoded['status']
if status ~= 'PROJECTING' then
  if status == 'READY' or status == 'ERROR' then return {2, status} end
  return 3
end
redis.call('SET', KEYS[1], ARGV[1], 'KEEPTTL')
return 0
`

export const TRANSITION_SHA1 = createHash("sha1").update(TRANSITION_LUA).digest("hex")

export const TransitionReply = {
  WRITTEN: 0,
  NOT_FOUND: 1,
  ILLEGAL: 2,
  CORRUPT: 3
} as const

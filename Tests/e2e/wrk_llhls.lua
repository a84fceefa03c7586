-- LL-HLS viewers for wrk (Debian `wrk`), to measure what one origin carries and to cross-check `sluice bench --viewers`:
--   taskset -c 1 wrk -t4 -c400 -d30s --timeout 10s -s Tests/e2e/wrk_llhls.lua http://HOST:PORT/live/KEY/video.m3u8 [-- audio]
-- Two connections make one viewer: like a player's video and audio chains, each connection sends a blocking reload
-- (`_HLS_msn`/`_HLS_part`, RFC 8216bis §6.2.5.2) for the next part, then fetches the part that reload announced,
-- and again. wrk gives no connection identity to Lua, so a thread's connections share one queue: every blocking
-- answer queues one part fetch and the next free connection sends it; in total that is one reload and one part per
-- part and rendition per connection pair, as players send. A part's delay runs from the origin's publication
-- instant (its X-Sluice-Published header) to the response's last byte (wrk calls `response` once the whole body is
-- read), on the wall clock (LuaJIT's FFI reads CLOCK_REALTIME). A non-200 answer or a socket time-out is a miss:
-- reported beside the percentiles, and counted in the "misses as late" p99 as later than any delivery.

local ffi = require("ffi")
ffi.cdef [[
typedef struct { long tv_sec; long tv_nsec; } sluice_timespec;
int clock_gettime(int clock, sluice_timespec *ts);
]]
local ts = ffi.new("sluice_timespec")
local function now()
    ffi.C.clock_gettime(0, ts)
    return tonumber(ts.tv_sec) + tonumber(ts.tv_nsec) / 1e9
end

-- Delays go into 0.5 ms buckets up to 10 s (one more bucket for anything later), so threads hand back small tables.
local BUCKET_MS, BUCKETS = 0.5, 20000

local threads = {}

function setup(thread)
    table.insert(threads, thread)
end

-- Per thread (wrk gives each its own Lua state); read back by `done` through thread:get.
hist = {}
parts = 0
failures = 0
reloads = 0
positions = {}
local base, playlists = nil, {}
local at = {}
local queue, head, tail = {}, 1, 0
-- Blocking reloads sent and not yet answered, by "rendition msn.part".
local asked = {}
local turn = 0

function init(args)
    base = wrk.path:match("^(.*)/")
    local video = wrk.path:match("([^/?]+)%.m3u8")
    playlists = { video, args[1] or "audio" }
end

function request()
    if head <= tail then
        local path = queue[head]
        queue[head] = nil
        head = head + 1
        return wrk.format("GET", path)
    end
    turn = turn % #playlists + 1
    local name = playlists[turn]
    local p = base .. "/" .. name .. ".m3u8"
    local pos = at[name]
    if pos == nil then
        return wrk.format("GET", p)
    end
    local asking = name .. " " .. pos[1] .. "." .. pos[2]
    asked[asking] = (asked[asking] or 0) + 1
    return wrk.format("GET", p .. "?_HLS_msn=" .. pos[1] .. "&_HLS_part=" .. pos[2])
end

function response(status, headers, body)
    if status ~= 200 then
        failures = failures + 1
        return
    end
    local stated = headers["X-Sluice-Published"] or headers["x-sluice-published"]
    if stated ~= nil then
        local ms = (now() - tonumber(stated)) * 1000
        local b = math.max(0, math.min(BUCKETS, math.floor(ms / BUCKET_MS)))
        hist[b] = (hist[b] or 0) + 1
        parts = parts + 1
        return
    end
    local hint = body:match('#EXT%-X%-PRELOAD%-HINT:TYPE=PART,URI="([^"]+)"')
    if hint == nil then
        return
    end
    local name, m, p = hint:match("([^/]+)/(%d+)%.(%d+)%.m4s$")
    if name == nil then
        return
    end
    m, p = tonumber(m), tonumber(p)
    local pos = at[name]
    -- Only forward: a late answer for an older position must not send the thread back.
    if pos == nil or m > pos[1] or (m == pos[1] and p > pos[2]) then
        at[name] = { m, p }
    end
    local last
    for uri in body:gmatch('#EXT%-X%-PART:[^\n]-URI="([^"]+)"') do
        last = uri
    end
    local lm, lp = (last or ""):match("(%d+)%.(%d+)%.m4s$")
    local key = lm and (name .. " " .. lm .. "." .. lp)
    -- The answer to a blocking reload lists the awaited part last: fetch it, as a player does. A plain playlist
    -- answer (a connection's first request) lists no part a reload is waiting for.
    if key ~= nil and (asked[key] or 0) > 0 then
        asked[key] = asked[key] - 1
        tail = tail + 1
        queue[tail] = base .. "/" .. last
        reloads = reloads + 1
        positions[last] = true
    end
end

function done(summary, latency, requests)
    local total, failed, answered = {}, 0, 0
    local distinct, seen = 0, {}
    for _, thread in ipairs(threads) do
        for b, n in pairs(thread:get("hist")) do
            total[b] = (total[b] or 0) + n
        end
        answered = answered + thread:get("parts")
        failed = failed + thread:get("failures")
        for uri, _ in pairs(thread:get("positions")) do
            if not seen[uri] then
                seen[uri] = true
                distinct = distinct + 1
            end
        end
    end
    local e = summary.errors
    local misses = failed + e.timeout + e.read + e.connect + e.write
    local function rank(q, extra)
        local count = answered + extra
        if count == 0 then
            return 0 / 0
        end
        local want, run = math.max(1, math.ceil(q * count)), 0
        for b = 0, BUCKETS do
            run = run + (total[b] or 0)
            if run >= want then
                return (b + 0.5) * BUCKET_MS
            end
        end
        return 1 / 0
    end
    io.write(string.format(
        "wrk parts %d delivery p50 %.1f ms p90 %.1f ms p99 %.1f ms; p99 with misses as late %.1f ms; "
            .. "requests %d, non-200 %d, socket errors connect %d read %d write %d timeout %d; "
            .. "distinct parts %d, parts per distinct part %.1f\n",
        answered, rank(0.5, 0), rank(0.9, 0), rank(0.99, 0), rank(0.99, misses), summary.requests, failed,
        e.connect, e.read, e.write, e.timeout, distinct, distinct > 0 and answered / distinct or 0))
end

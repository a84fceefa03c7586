-- An independent LL-HLS load for wrk (Debian `wrk`), to cross-check `sluice bench --viewers`:
--   wrk -t1 -c200 -d15s --timeout 10s -s Tests/e2e/wrk_llhls.lua http://HOST:PORT/live/KEY/video.m3u8
-- Connections share their thread's position, so together they send what players send: for every part one blocking
-- reload (`_HLS_msn`/`_HLS_part`, RFC 8216bis §6.2.5.2) and one fetch of the newest listed part. Each part's delay
-- runs from the origin's publication instant (its X-Sluice-Published header) to the response, on the wall clock
-- (LuaJIT's FFI reads CLOCK_REALTIME); a non-200 answer is a failure, reported beside the percentiles.

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

local threads = {}

function setup(thread)
    table.insert(threads, thread)
end

-- Per thread (wrk gives each its own Lua state).
delays = {}
failures = 0
local playlist, base
local msn, part
local newest
local turn = 0

function init(args)
    playlist = wrk.path
    base = playlist:match("^(.*)/")
end

function request()
    turn = turn + 1
    if msn == nil then
        return wrk.format("GET", playlist)
    end
    if turn % 2 == 0 and newest ~= nil then
        return wrk.format("GET", base .. "/" .. newest)
    end
    return wrk.format("GET", playlist .. "?_HLS_msn=" .. msn .. "&_HLS_part=" .. part)
end

function response(status, headers, body)
    if status ~= 200 then
        failures = failures + 1
        return
    end
    local stated = headers["X-Sluice-Published"] or headers["x-sluice-published"]
    if stated ~= nil then
        table.insert(delays, (now() - tonumber(stated)) * 1000)
        return
    end
    local last
    for uri in body:gmatch('#EXT%-X%-PART:[^\n]-URI="([^"]+)"') do
        last = uri
    end
    if last ~= nil then
        newest = last
    end
    local hint = body:match('#EXT%-X%-PRELOAD%-HINT:TYPE=PART,URI="([^"]+)"')
    if hint ~= nil then
        local m, p = hint:match("(%d+)%.(%d+)%.m4s$")
        -- Only forward: a late answer for an older position must not send the thread back.
        if m ~= nil and (msn == nil or tonumber(m) > msn or (tonumber(m) == msn and tonumber(p) > part)) then
            msn, part = tonumber(m), tonumber(p)
        end
    end
end

function done(summary, latency, requests)
    local all, failed = {}, 0
    for _, thread in ipairs(threads) do
        for _, d in ipairs(thread:get("delays")) do
            table.insert(all, d)
        end
        failed = failed + thread:get("failures")
    end
    table.sort(all)
    local function rank(q)
        if #all == 0 then
            return 0 / 0
        end
        return all[math.max(1, math.min(#all, math.ceil(q * #all)))]
    end
    local e = summary.errors
    io.write(string.format(
        "wrk parts %d delivery p50 %.1f ms p90 %.1f ms p99 %.1f ms; requests %d, non-200 %d, "
            .. "socket errors connect %d read %d write %d timeout %d\n",
        #all, rank(0.5), rank(0.9), rank(0.99), summary.requests, failed, e.connect, e.read, e.write, e.timeout))
end

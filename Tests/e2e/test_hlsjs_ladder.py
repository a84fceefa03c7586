"""hls.js 1.6 (from the gradio wheel) plays the 720p ladder in headless Chromium as the watch page does, and
switches level on demand, up and down, without a stall.

hls.js reaches us inside the PyPI wheel `gradio==6.31.0` (npm is unreachable): hlsjs.py (`make hlsjs`, shared with
`sluice bench --player hlsjs`) extracts its ES-module chunk into .build/hlsjs/; the test serves it with a local
http.server next to the test page (another origin than the gateway); it is never committed. The page loads the
gateway's own /pages/sluice-player.js (the watch page's hls.js settings, Hls lookup and live-edge keeper), so this
plays exactly as a viewer of /watch does.

A forced switch is `hls.nextLevel`, the watch page's rendition picker: hls.js keeps what it has buffered and loads
the new level from the next part on. Stall policy: none. After each switch, no `waiting` event and no
BUFFER_STALLED_ERROR. (`hls.currentLevel`, hls.js's immediate switch, flushes the whole buffer, and at
PART-HOLD-BACK behind the edge the refill can outrun playback for a moment: that is hls.js's documented cost, not
the gateway's.) A switch is judged only if the player was playing without a `waiting` for 2 s before it and the
source's own live edge (video.m3u8) moved at real time within EDGE_RATE_SLACK meanwhile (slower: the publisher or host
lags; faster: it is sending a backlog after lagging, which drained every player); otherwise the publisher or
host is behind (seen with other suites running at once) and the switch is retried. hls.latency is printed after
each switch.
"""
from __future__ import annotations

import functools
import http.server
import shutil
import threading
import time
from pathlib import Path

import pytest

import hlsjs
import laddercheck as lc
from follower import wait_for_multivariant
from browser import headless_chromium, unavailable as no_browser
from procs import ARTIFACTS, free_port
from waiting import eventually

KEY = "e2e-hlsjs-ladder"
PUBLISH_SECONDS = 60  # killed at teardown; long enough for retried switch windows
# When the source's live edge moves further than this from real time, the publisher or host lags (or sends the backlog
# after lagging), and any player at PART-HOLD-BACK starves whatever the gateway does: the window is retried, not judged.
EDGE_RATE_SLACK = 0.1
WATCH_S = 3.0  # playback observed after each LEVEL_SWITCHED

PAGE = """<!doctype html><html><body style="margin:0;background:#000">
<video id="v" muted autoplay playsinline width="960" height="540"></video>
<script type="module">
const t0 = performance.now();
const now = () => Math.round(performance.now() - t0);
window.now = now;
window.log = {events: [], switched: [], errors: [], levels: null, fatal: null, ready: false};
try {
  // The gateway's own player script, from the origin of the playlist (so only {src} needs filling in).
  await new Promise((ok, fail) => {
    const s = document.createElement('script');
    s.src = new URL('/pages/sluice-player.js', '{src}').href;
    s.onload = ok; s.onerror = () => fail(new Error('no ' + s.src));
    document.head.append(s);
  });
  const Hls = SluicePlayer.hlsFromModule(await import('./hls-chunk.js'));
  const v = document.getElementById('v');
  const hls = new Hls(SluicePlayer.hlsConfig());
  window.hls = hls; window.Hls = Hls;
  const keeper = new LiveKeeper(hls, v);
  setInterval(() => keeper.tick(), 250);
  hls.on(Hls.Events.MANIFEST_PARSED, () => {
    log.levels = hls.levels.map(l => ({width: l.width, height: l.height, bitrate: l.bitrate, uri: l.uri}));
  });
  hls.on(Hls.Events.LEVEL_SWITCHED, (e, d) => log.switched.push([now(), d.level]));
  hls.on(Hls.Events.ERROR, (e, d) => log.errors.push([now(), d.type, d.details, !!d.fatal,
    (d.response && d.response.code) || null, (d.context && d.context.url) || (d.frag && d.frag.url) || null,
    (d.error && d.error.message) || null, d.buffer == null ? null : d.buffer]));
  for (const ev of ['waiting', 'playing', 'stalled', 'error', 'resize'])
    v.addEventListener(ev, () => log.events.push([now(), ev, v.currentTime, v.videoHeight]));
  hls.attachMedia(v);
  hls.loadSource('{src}');
  v.play().catch(e => log.errors.push([now(), 'play', String(e), false]));
  log.version = Hls.version;
  log.ready = true;
} catch (e) { log.fatal = String(e && e.stack || e); }
</script></body></html>"""

STATE_JS = ("const v = document.getElementById('v'); const h = window.hls;"
            " return {now: window.now ? window.now() : 0, t: v.currentTime, w: v.videoWidth, h: v.videoHeight,"
            " paused: v.paused, rs: v.readyState, err: v.error && (v.error.code + ' ' + v.error.message),"
            " level: h ? h.currentLevel : null, latency: h ? h.latency : null,"
            " target: h ? h.targetLatency : null, log: window.log};")


def _extract_hlsjs() -> Path:
    """The ES-module chunk of the gradio wheel that contains hls.js (hlsjs.py: .build/hlsjs/, `make hlsjs`)."""
    try:
        return hlsjs.extract()
    except hlsjs.Unavailable as e:
        pytest.skip(str(e))


@pytest.fixture
def page_server(workdir):
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(workdir))
    handler.log_message = lambda *a, **k: None
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def driver(workdir):
    if no_browser():
        pytest.skip(no_browser())
    d = headless_chromium(workdir, browser_log=True)
    yield d
    try:
        (workdir / "console.log").write_text("\n".join(str(e) for e in d.get_log("browser")))
    except Exception:  # noqa: BLE001 - the console log is an artifact, not a result
        pass
    d.quit()


def _edge(url: str) -> tuple[float, float]:
    """(monotonic now, end of the last listed part in PDT seconds) of one media playlist."""
    import requests

    import hlsvalidate as hv
    t = time.monotonic()
    tl = hv.parse_media_playlist(requests.get(url, timeout=5).text, url).part_timeline()
    return t, (tl[-1][2] if tl else 0.0)


def _wait_ladder(url: str, timeout: float) -> int:
    """Number of variants once the multivariant lists the whole 720p ladder (or what it had at the end)."""
    import requests
    n = eventually(lambda: requests.get(url, timeout=2).text.count("#EXT-X-STREAM-INF"), timeout,
                   until=lambda n: (n or 0) >= len(lc.LADDERS[720]), period=0.2, ignoring=requests.RequestException)
    return n or 0


def test_hlsjs_plays_the_ladder_and_switches_level_without_stalling(gateway, publishers, page_server, driver,
                                                                    workdir):
    chunk = _extract_hlsjs()
    shutil.copyfile(chunk, workdir / "hls-chunk.js")
    pub = publishers(lc.publisher_cmd(gateway.rtmp_url(KEY), PUBLISH_SECONDS))
    url = gateway.hls_url(KEY)
    assert wait_for_multivariant(url, 15) is not None, gateway.log()[-2000:]
    variants = _wait_ladder(url, 10)
    assert variants == len(lc.LADDERS[720]), f"multivariant lists {variants} variants\n{gateway.log()[-1500:]}"
    (workdir / "index.html").write_text(PAGE.replace("{src}", url))
    driver.get(f"http://127.0.0.1:{page_server.server_address[1]}/index.html")

    def state() -> dict:
        return driver.execute_script(STATE_JS)

    def context(s: dict) -> str:
        lg = s.get("log") or {}
        return (f"state t={s.get('t')} level={s.get('level')} {s.get('w')}x{s.get('h')} err={s.get('err')}\n"
                f"events {lg.get('events')}\nswitched {lg.get('switched')}\nerrors {lg.get('errors')}\n"
                f"levels {lg.get('levels')}\nfatal {lg.get('fatal')}\ngateway log tail:\n{gateway.log()[-1200:]}\n"
                f"publisher:\n{pub.log()[-400:]}")

    # 1. Playback starts.
    s = eventually(state, 25, until=lambda s: s["t"] > 1.5 or s["err"] or (s["log"] or {}).get("fatal"), period=0.25)
    assert not (s["log"] or {}).get("fatal"), context(s)
    assert s["t"] > 1.5 and not s["err"], f"hls.js did not start playing\n{context(s)}"
    levels = s["log"]["levels"]
    time.sleep(2)  # two seconds of steady playback before the first switch (see `healthy` below)
    s = state()
    assert [lv["height"] for lv in levels] == [360, 480, 720], f"hls.js levels {levels}"
    print(f"hls.js {s['log'].get('version')}: levels {levels}; playing level {s['level']} at t={s['t']:.2f}, "
          f"latency {s['latency']:.3f} s (target {s['target']})")

    # 2. Force every other level in turn (then back). A window in which the source's own live edge
    # fell behind real time proves nothing about switching: it is retried, a few times at most.
    results, latencies = [], [("start", s["latency"])]
    start_level = s["level"]
    order = [lv for lv in (2, 1, 0) if lv != start_level] + ([start_level] if start_level >= 0 else [])
    judged: dict[int, dict] = {}
    attempt = 0
    while len(judged) < len(order) and attempt < 3 * len(order) and pub.proc.poll() is None:
        target = order[attempt % len(order)]
        attempt += 1
        edges0 = {lv: _edge(levels[lv]["uri"]) for lv in {2, target}}
        t_set = driver.execute_script(f"window.hls.nextLevel = {target}; return window.now();")

        def switched(s):
            return next((t for t, lv in s["log"]["switched"] if t >= t_set and lv == target), None)

        s = eventually(state, 8, until=lambda s: switched(s) is not None)
        switched_at = switched(s)
        assert switched_at is not None, f"no LEVEL_SWITCHED to {target} within 8 s\n{context(s)}"
        t_switched = s["t"]
        time.sleep(WATCH_S)
        s = state()
        # How fast each live edge moved meanwhile (1.0 = real time).
        rates = {}
        for lv, (w0, e0) in edges0.items():
            w1, e1 = _edge(levels[lv]["uri"])
            rates[levels[lv]["height"]] = round((e1 - e0) / (w1 - w0), 2)
        want_h = levels[target]["height"]
        end = time.monotonic() + 3
        while s["h"] != want_h and time.monotonic() < end:
            time.sleep(0.2)
            s = state()
        ev = [e for e in s["log"]["events"] if e[0] >= t_set]
        waits = [e for e in ev if e[1] == "waiting"]
        plays = [e for e in ev if e[1] == "playing"]
        stalls = [e for e in s["log"]["errors"] if e[0] >= t_set and e[2] == "bufferStalledError"]
        longest = 0.0
        for w in waits:
            p = next((x for x in plays if x[0] >= w[0]), None)
            longest = max(longest, ((p[0] if p else s["now"]) - w[0]) / 1000)
        advanced = s["t"] - t_switched
        # Judged only when the player was playing smoothly for 2 s before the switch and the source kept pace.
        evs_before = [e for e in s["log"]["events"] if e[0] < t_set and e[1] in ("waiting", "playing")]
        healthy = not [e for e in evs_before if e[1] == "waiting" and e[0] >= t_set - 2000] and \
            (not evs_before or evs_before[-1][1] == "playing")
        conclusive = healthy and abs(rates[levels[2]["height"]] - 1) <= EDGE_RATE_SLACK
        results.append(dict(level=target, switch_ms=switched_at - t_set, waiting=len(waits),
                            longest_wait_s=round(longest, 3), stalled_errors=len(stalls),
                            advanced_s=round(advanced, 2), height=s["h"], want_height=want_h,
                            edge_rate=rates, conclusive=conclusive))
        latencies.append((target, s["latency"]))
        print(f"forced level {target}: {results[-1]}; latency {s['latency']:.3f} s")
        assert s["h"] == want_h, f"level {target}: video is {s['w']}x{s['h']}, want height {want_h}\n{context(s)}"
        assert advanced > 0, f"level {target}: currentTime stuck at {s['t']:.2f} after the switch\n{context(s)}"
        if not conclusive:
            continue
        judged[target] = results[-1]
        assert advanced > WATCH_S * 0.6, \
            f"level {target}: currentTime advanced {advanced:.2f} s in {WATCH_S} s\n{context(s)}"
        assert not waits, f"level {target}: {len(waits)} waiting events, longest {longest:.3f} s\n{context(s)}"
        assert not stalls, f"level {target}: BUFFER_STALLED_ERROR after the switch {stalls}\n{context(s)}"
    assert len(judged) == len(order), (
        f"levels {sorted(set(order) - set(judged))} never switched while the source's live edge kept pace "
        f"(1 ± {EDGE_RATE_SLACK} x real time): the host is too loaded to judge stalls (run this test alone)\n"
        + "\n".join(str(r) for r in results))

    driver.save_screenshot(str(workdir / "hlsjs.png"))
    shutil.copyfile(workdir / "hlsjs.png", ARTIFACTS / "hlsjs-ladder.png")
    fatal = [e for e in s["log"]["errors"] if e[3]]
    print("hls.latency by phase: " + ", ".join(f"{k}: {v:.3f} s" for k, v in latencies))
    print(f"non-fatal hls.js errors: {[e for e in s['log']['errors'] if not e[3]]}")
    (workdir / "result.txt").write_text("\n".join(str(r) for r in results) + f"\nlatency {latencies}\n")
    assert not fatal, f"fatal hls.js errors {fatal}\n{context(s)}"

"""hls.js plays OBS's defaults (issue 16): x264 veryfast, keyint 250, B-frames, lookahead, no tune, ladder on.

The page opens as the publisher starts (its playlist request is held until the stream is playable), plays the
ladder the gateway builds from the long-GOP source (a rung at the source's size instead of the passthrough, IDRs
on the 2 s grid, a 0.4 s first segment), and keeps playing through a publisher reconnect 10 s in (a
discontinuity at the same MSN in every rendition). What is checked is what a viewer sees: the first frame within
FIRST_FRAME_S of the publisher's launch, the passthrough never offered, no fatal hls.js error, and playback that
advances at real time after the reconnect.
"""
from __future__ import annotations

import shutil
import signal
import time

from procs import Gateway, Publisher
from waiting import eventually
from test_hlsjs_ladder import PAGE, STATE_JS, _extract_hlsjs, driver, page_server  # noqa: F401 - fixtures
from test_long_gop import RECONNECT_AFTER_S, obs_defaults_cmd

KEY = "e2e-long-gop-hlsjs"
# From the publisher's launch: ffmpeg's start, x264's lookahead and B-frame delay (about 0.5 s), the 0.4 s first
# segment and hls.js's own start-up; generous for the debug build on a shared box.
FIRST_FRAME_S = 4.0
# After the reconnect has settled, playback must advance at least this share of wall time.
REAL_TIME_SHARE = 0.8


def test_hlsjs_plays_obs_defaults_from_publish_start_and_through_a_reconnect(workdir, page_server, driver):
    shutil.copyfile(_extract_hlsjs(), workdir / "hls-chunk.js")
    gw = Gateway(workdir).start()
    pubs: list[Publisher] = []
    try:
        url = gw.hls_url(KEY)
        (workdir / "index.html").write_text(PAGE.replace("{src}", url))
        driver.get(f"http://127.0.0.1:{page_server.server_address[1]}/index.html")
        state = lambda: driver.execute_script(STATE_JS)  # noqa: E731
        loaded = eventually(lambda: state()["log"]["ready"] or state()["log"]["fatal"], 15)
        assert loaded, "the page never loaded hls.js"
        assert not state()["log"]["fatal"], state()["log"]["fatal"]
        launched = time.monotonic()
        pubs.append(Publisher(obs_defaults_cmd(gw.rtmp_url(KEY), RECONNECT_AFTER_S + 2), workdir / "publisher1.log"))
        first = eventually(lambda: (lambda s: s["t"] > 0 and s)(state()), 20, period=0.05)
        assert first, f"hls.js showed nothing in 20 s: {state()}\n{gw.log()[-2000:]}"
        first_frame_s = time.monotonic() - launched
        levels = state()["log"]["levels"] or []
        heights = sorted({lv["height"] for lv in levels}, reverse=True)
        assert heights == [720, 480, 360] and not any("video.m3u8" in (lv["uri"] or "") for lv in levels), levels
        print(f"first frame {first_frame_s:.2f} s after the publisher's launch")
        assert first_frame_s <= FIRST_FRAME_S, f"first frame after {first_frame_s:.2f} s: {state()}"

        # The publisher drops and comes straight back on the same key, as OBS does after a network blip.
        time.sleep(max(0.0, RECONNECT_AFTER_S - (time.monotonic() - launched)))
        pubs[0].stop(signal.SIGTERM)
        pubs.append(Publisher(obs_defaults_cmd(gw.rtmp_url(KEY), 25), workdir / "publisher2.log"))
        # Settled: the player plays again; then it must keep up with real time.
        assert eventually(lambda: (lambda s: not s["paused"] and s["rs"] >= 3 and s)(state()), 15), state()
        time.sleep(3)
        t0, w0 = state()["t"], time.monotonic()
        time.sleep(8)
        s = state()
        advanced, wall = s["t"] - t0, time.monotonic() - w0
        errors = s["log"]["errors"]
        fatal = [e for e in errors if e[3]]
        assert not fatal and not s["log"]["fatal"], f"fatal hls.js errors: {fatal or s['log']['fatal']}"
        assert advanced >= REAL_TIME_SHARE * wall, (
            f"after the reconnect playback advanced {advanced:.2f} s in {wall:.2f} s: {s}\n{gw.log()[-2000:]}")
        assert "EXT-X-DISCONTINUITY" in _media(url), "the reconnect left no discontinuity in the playlist"
    finally:
        for p in pubs:
            if p.proc.poll() is None:
                p.stop()
        gw.stop()


def _media(url: str) -> str:
    import requests
    return requests.get(url.replace("index.m3u8", "720p.m3u8"), timeout=10).text

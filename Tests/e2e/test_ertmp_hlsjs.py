"""Enhanced RTMP (issue 20) in a real player: FFmpeg 9 publishes AV1 or HEVC over E-RTMP, hls.js 1.6 in headless
Chromium (the watch page's settings, as test_hlsjs_ladder.py) gets the source codec's passthrough and the H.264 rungs.
AV1: the av01 level is listed and plays at 1280x720 when asked, then an H.264 rung, each for 3 s of advancing
playback. HEVC (x265 with B-frames): Chromium's hls.js lists only the avc1 rungs, and one plays for 3 s (a build
listing hvc1 would be asked to play it the same way).
"""
from __future__ import annotations

import shutil
import time

import pytest

from follower import wait_for_multivariant
from waiting import eventually_in_page
from test_ertmp import CODECS, FFMPEG9, publisher_cmd
from test_hlsjs_ladder import PAGE, STATE_JS, _extract_hlsjs, driver, page_server  # noqa: F401 - fixtures

KEY = "e2e-ertmp-hlsjs"
LEVELS_JS = "return window.hls ? window.hls.levels.map(l => [l.height, l.videoCodec || '']) : null;"
FRAMES_JS = "return document.getElementById('v').getVideoPlaybackQuality().totalVideoFrames;"


# HEVC: hls.js drops the hvc1 level in Chromium (levels 360p/480p avc1 only), so the H.264 rung decoded from the
# HEVC source is what plays. Passed 3 of 3 at load average ~5 (2026-11-26); earlier, with a fuzzer running beside
# it, the 720p HEVC decode + two rungs fell behind on 2 cores and the rung stalled in 2 of 3 runs: a heavier-load
# case, not a player result.
@pytest.mark.parametrize("codec", ["av1", "hevc"])
def test_hlsjs_plays_what_it_can_decode(codec, gateway, publishers, page_server, driver, workdir):  # noqa: F811
    if FFMPEG9 is None:
        pytest.skip("imageio-ffmpeg (FFmpeg 9, the E-RTMP publisher) is not installed")
    chunk = _extract_hlsjs()
    shutil.copyfile(chunk, workdir / "hls-chunk.js")
    cmd = publisher_cmd(gateway.rtmp_url(KEY), CODECS[codec][1])
    cmd[cmd.index("-t") + 1] = "40"
    pub = publishers(cmd)
    url = gateway.hls_url(KEY)
    assert wait_for_multivariant(url, 20) is not None, gateway.log()[-2000:]
    (workdir / "index.html").write_text(PAGE.replace("{src}", url))
    driver.get(f"http://127.0.0.1:{page_server.server_address[1]}/index.html")

    def context(s: dict) -> str:
        lg = s.get("log") or {}
        return (f"state t={s.get('t')} level={s.get('level')} {s.get('w')}x{s.get('h')} err={s.get('err')}\n"
                f"events {lg.get('events')}\nerrors {lg.get('errors')}\nfatal {lg.get('fatal')}\n"
                f"gateway log tail:\n{gateway.log()[-1200:]}\npublisher:\n{pub.log()[-400:]}")

    s = eventually_in_page(driver, STATE_JS, lambda s: s["t"] > 1.5 or s["err"] or (s["log"] or {}).get("fatal"), 30)
    assert s["t"] > 1.5 and not s["err"], f"hls.js did not start playing\n{context(s)}"
    levels = driver.execute_script(LEVELS_JS)
    print(f"hls.js levels (height, videoCodec): {levels}")
    source = [i for i, (_, c) in enumerate(levels) if c.startswith(CODECS[codec][0])]
    h264 = [i for i, (_, c) in enumerate(levels) if c.startswith("avc1")]
    assert len(h264) >= 2, f"want two avc1 levels, got {levels}"
    if codec == "av1":
        assert source, f"hls.js dropped the av01 level: {levels}"
    print(f"{codec}: source level listed by hls.js: {bool(source)}")

    for level, height in [(i, 720) for i in source[:1]] + [(h264[0], levels[h264[0]][0])]:
        # nextLevel keeps the buffer (the watch page's picker); currentLevel would flush it and can stall.
        driver.execute_script(f"window.hls.nextLevel = {level};")
        s = eventually_in_page(driver, STATE_JS,
                               lambda s: s["level"] == level and s["h"] == height and not s["paused"], 15)
        assert s["level"] == level and s["h"] == height, f"level {level} never played at {height}p\n{context(s)}"
        t0, f0 = s["t"], driver.execute_script(FRAMES_JS)
        time.sleep(3)
        s = driver.execute_script(STATE_JS)
        frames = driver.execute_script(FRAMES_JS) - f0
        print(f"level {level} {levels[level]}: {s['t'] - t0:.2f} s played, {frames} frames presented in 3 s")
        assert s["t"] - t0 > 2 and frames > 45 and not s["err"], f"level {level} did not play on\n{context(s)}"

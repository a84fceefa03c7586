"""DVR (issue 21): with `hls.dvr_window_s`, the live playlists reach that far back, hls.js seeks back into it and
plays, then returns to the live edge.

A 30 s window (the issue's example is 120 s; 30 s keeps the run short with the same mechanism): after 22 s of a
1 s-GOP publish the video playlist lists at least 20 s of segments while parts stay only near the edge, hls.js
seeks 15 s behind live and plays from there (the pixels move on), then jumps back to `liveSyncPosition` and plays
within a second of its live target again.
"""
from __future__ import annotations

import re
import shutil
import time

import requests

from procs import Gateway, Publisher, ffmpeg_cmd
from waiting import eventually
from test_hlsjs_ladder import PAGE, STATE_JS, _extract_hlsjs, driver, page_server  # noqa: F401 - fixtures

KEY = "e2e-dvr"


def test_hlsjs_seeks_back_into_the_dvr_window_and_returns_to_live(workdir, page_server, driver):
    shutil.copyfile(_extract_hlsjs(), workdir / "hls-chunk.js")
    gw = Gateway(workdir, extra=["--transcode", "off"], env={"SLUICE_HLS_DVR_WINDOW_S": "30"}).start()
    pub = Publisher(ffmpeg_cmd(gw.rtmp_url(KEY), 60, size="640x360"), workdir / "publisher.log")
    try:
        url = gw.hls_url(KEY)
        time.sleep(22)
        media = requests.get(url.replace("index.m3u8", "video.m3u8"), timeout=10).text
        listed = sum(float(d) for d in re.findall(r"#EXTINF:([\d.]+),", media))
        with_parts = len(set(re.findall(r'#EXT-X-PART:.*URI="[^"]*/(\d+)\.\d+\.m4s"', media)))
        assert listed >= 20, f"only {listed:.1f} s listed with a 30 s DVR window:\n{media}"
        assert with_parts <= 5, f"parts listed for {with_parts} segments: only near the edge"
        (workdir / "index.html").write_text(PAGE.replace("{src}", url))
        driver.get(f"http://127.0.0.1:{page_server.server_address[1]}/index.html")
        state = lambda: driver.execute_script(STATE_JS)  # noqa: E731
        live = eventually(lambda: (lambda s: s["t"] > 0 and s["latency"] and s)(state()), 20, period=0.2)
        assert live, state()
        time.sleep(2)
        edge = driver.execute_script("return window.hls.liveSyncPosition;")
        start = driver.execute_script("return document.getElementById('v').seekable.start(0);")
        assert edge - start >= 20, f"seekable only from {start:.1f} to live {edge:.1f}"
        driver.execute_script(f"document.getElementById('v').currentTime = {edge - 15};")
        back = eventually(lambda: (lambda s: s["latency"] and s["latency"] > 12 and s)(state()), 10, period=0.2)
        assert back, f"hls.js did not land 15 s behind live: {state()}"
        t0 = state()["t"]
        time.sleep(3)
        s = state()
        assert s["t"] - t0 >= 2.5 and s["latency"] > 10, f"did not play from the past: {t0} -> {s}"
        driver.execute_script("const h = window.hls; document.getElementById('v').currentTime = h.liveSyncPosition;")
        near = eventually(lambda: (lambda s: s["latency"] and s["latency"] < s["target"] + 1 and s)(state()),
                          10, period=0.2)
        assert near, f"did not return to live: {state()}"
        assert not [e for e in s["log"]["errors"] if e[3]], s["log"]["errors"]
    finally:
        pub.stop()
        gw.stop()

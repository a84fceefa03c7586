"""wrk as LL-HLS viewers (Tests/e2e/wrk_llhls.lua), the load generator of docs/SCALING.md's viewer counts (issue 22).

A real wrk against a real origin: 20 viewers (40 connections, video and audio chains) walk blocking reloads and fetch
every part they announce. Asserted is behaviour, never speed: every answer is a 200, no socket error or time-out, each
part was fetched by about as many viewers as there are, and every fetched part carried the origin's publication
instant (the delay percentiles are printed, and go to the docs only from release builds).
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest
import requests

from procs import FAST_SEGMENTS, Gateway, ffmpeg_cmd
from waiting import eventually

KEY = "wrk"
VIEWERS = 20
SECONDS = 12

pytestmark = pytest.mark.skipif(shutil.which("wrk") is None, reason="wrk is not installed (apt-get install wrk)")


def run_wrk(playlist: str, viewers: int, seconds: int) -> dict[str, float]:
    lua = Path(__file__).parent / "wrk_llhls.lua"
    out = subprocess.run(["wrk", "-t2", f"-c{2 * viewers}", f"-d{seconds}s", "--timeout", "10s", "-s", str(lua),
                          playlist], capture_output=True, text=True, timeout=seconds + 60).stdout
    line = next((ln for ln in out.splitlines() if ln.startswith("wrk parts")), None)
    assert line is not None, out
    print("\n" + line)
    fields = {"parts": r"wrk parts (\d+)", "non-200": r"non-200 (\d+)", "connect": r"connect (\d+)",
              "read": r"read (\d+)", "write": r"write (\d+)", "timeout": r"timeout (\d+)",
              "distinct parts": r"distinct parts (\d+)", "parts per distinct part": r"per distinct part ([\d.]+)"}
    found = {name: re.search(pattern, line) for name, pattern in fields.items()}
    assert all(found.values()), line
    return {name: float(m.group(1)) for name, m in found.items()}


def test_wrk_viewers_fetch_every_part_once_each(workdir, publishers):
    gw = Gateway(workdir, FAST_SEGMENTS + ["--transcode", "off"]).start()
    try:
        publishers(ffmpeg_cmd(gw.rtmp_url(KEY), SECONDS + 25, size="640x360"))
        playlist = f"http://127.0.0.1:{gw.http_port}/live/{KEY}/video.m3u8"
        assert eventually(lambda: requests.get(playlist, timeout=12).status_code == 200, 30, period=0.3)
        r = run_wrk(playlist, VIEWERS, SECONDS)
    finally:
        gw.stop()
    assert r["non-200"] == 0 and r["timeout"] == 0 and r["read"] == 0 and r["connect"] == 0, r
    # Video and audio parts over the run (LL-HLS parts of 0.2 s here, a few dozen at the least).
    assert r["distinct parts"] >= 20, r
    # Each part fetched by about every viewer: the shared queue neither loses nor doubles fetches.
    assert 0.8 * VIEWERS <= r["parts per distinct part"] <= 1.05 * VIEWERS, r
    # Every part counted carried X-Sluice-Published (the parts count is what the histogram holds).
    assert r["parts"] >= r["distinct parts"] * 0.8 * VIEWERS, r

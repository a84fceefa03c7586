"""`hls.first_segment_cuts_passthrough: true`: the passthrough's first segment ends 0.4 s in, between the source's
keyframes, so a real hls.js opened when the streamer goes live reads a first playlist holding less than one keyframe
interval and plays from it without an error (the default waits for the source's second keyframe: test_bench_players).

The bench's own gateway takes the SLUICE_* override as `serve` does; hls.js comes from `make hlsjs`."""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess

import pytest

import hlsjs
from procs import ARTIFACTS, SLUICE

OUT = ARTIFACTS / "first-segment-cut"
SECONDS = 10
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
# The publisher's keyframe interval (sluice bench: 1 s); a first playlist listing less media than this ended its first
# segment before the second keyframe.
KEYFRAME_INTERVAL_S = 1.0


@pytest.fixture(scope="module")
def run():
    if not os.path.exists(CHROMIUM):
        pytest.skip("chromium is not installed")
    try:
        chunk = hlsjs.extract()
    except hlsjs.Unavailable as e:
        pytest.skip(str(e))
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / "out.json"
    out.unlink(missing_ok=True)
    cmd = [str(SLUICE), "bench", "--scenarios", "rtmp-llhls", "--player", "hlsjs", "--source", "640x360",
           "--duration", str(SECONDS), "--hlsjs", str(chunk), "--json", str(out), "--player-trace", str(OUT)]
    env = dict(os.environ, SLUICE_HLS_FIRST_SEGMENT_CUTS_PASSTHROUGH="true")
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=180, env=env)
    (OUT / "stdout.txt").write_text(p.stdout)
    (OUT / "stderr.txt").write_text(p.stderr)
    assert p.returncode == 0, f"sluice bench exited {p.returncode}\n{p.stdout[-3000:]}\n{p.stderr[-2000:]}"
    [row] = [s for s in json.loads(out.read_text())["scenarios"] if s["player"] == "hlsjs"]
    trace = json.loads((OUT / "rtmp-llhls-hlsjs.json").read_text())
    return row, trace


def test_hlsjs_starts_on_a_first_segment_shorter_than_the_keyframe_interval(run):
    row, trace = run
    first = next((e["detail"] for e in trace["events"]
                  if e["viewer"] == 1 and e["type"] == "levelUpdated" and e["detail"].startswith("main ")), None)
    assert first is not None, trace["events"][:20]
    edge = float(re.search(r"edge=([0-9.]+)", first).group(1))
    assert edge < KEYFRAME_INTERVAL_S * 0.9, f"hls.js's first playlist already held {edge} s: {first}"
    assert row["publishToFirstFrameMs"] is not None, row


def test_hlsjs_plays_the_cut_stream_without_an_error_or_a_stall(run):
    row, _ = run
    assert row["fatalErrors"] == 0 and row["startupErrors"] == 0 and row["levelLoadErrors"] == 0, row
    assert row["stalls"] == 0, row
    assert row["frames"] >= SECONDS * 15, row

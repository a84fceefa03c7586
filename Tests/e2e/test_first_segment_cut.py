"""`hls.first_segment_cuts_passthrough: true`: the passthrough's first segment ends 0.4 s in, between the source's
keyframes, so a real hls.js opened when the streamer goes live reads a first playlist holding less than one keyframe
interval and plays from it without an error (the default waits for the source's second keyframe: test_bench_players).

The bench's own gateway takes the SLUICE_* override as `serve` does; hls.js comes from `make hlsjs`."""
from __future__ import annotations


import pytest

import benchplayers
from procs import ARTIFACTS

OUT = ARTIFACTS / "first-segment-cut"
SECONDS = 10
# The publisher's keyframe interval (sluice bench: 1 s); a first playlist listing less media than this ended its first
# segment before the second keyframe.
KEYFRAME_INTERVAL_S = 1.0


@pytest.fixture(scope="module")
def run():
    return benchplayers.run_hlsjs(OUT, "rtmp-llhls", "640x360", SECONDS,
                                  env={"SLUICE_HLS_FIRST_SEGMENT_CUTS_PASSTHROUGH": "true"})


def test_hlsjs_starts_on_a_first_segment_shorter_than_the_keyframe_interval(run):
    row, trace = run
    edge, first = benchplayers.hlsjs_first_playlist_edge(trace)
    assert edge < KEYFRAME_INTERVAL_S * 0.9, f"hls.js's first playlist already held {edge} s: {first}"
    # Debug build, loaded (3 runs, 15:22 UTC 2026-11-28): 0.77-0.97 s.
    assert row["publishToFirstFrameMs"] is not None and row["publishToFirstFrameMs"] <= 2_500, row


def test_hlsjs_plays_the_cut_stream_without_an_error_or_a_stall(run):
    row, trace = run
    benchplayers.assert_hlsjs_played_cleanly(row, trace, SECONDS)

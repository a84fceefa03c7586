"""Fast start with a passthrough top rendition (issue 15, `transcode.fast_start`, on by default): FFmpeg publishes 854x480@30 with a
1 s GOP, no B-frames (x264 states keyint=30 and bframes=0 in its first IDR), ladder on. The ladder encodes the top
rendition at the source size until the source's second keyframe, with an IDR at 0.4 s, then carries the source's own
frames, so every rendition's first segment ends 0.4 s in with an IDR and every segment a player sees starts on one.

Checked on what players see: the multivariant lists the bridged rung (source size) as `video.m3u8`, the passthrough's
name, never under its own (`480p.m3u8`); it claims
EXT-X-INDEPENDENT-SEGMENTS, is served before the source's second keyframe; every segment of every variant decodes on
its own with its init and starts on a key frame (ffprobe), across the handover too; the top rendition's init holds
both encoders' SPS; the validator passes; and a real hls.js opened when the streamer goes live plays from a first
playlist shorter than one keyframe interval, without an error or a stall.
"""
from __future__ import annotations

import os

import pytest

import benchplayers
import laddercheck as lc
from e2ecommon import assert_media_valid, assert_playlists_valid
from procs import ARTIFACTS, FAST_SEGMENTS, ffmpeg_cmd
from session import LiveRun, live_run
from test_long_gop import _segment_decodes_alone

KEY = "e2e-fast-start"
WANT = ["video.m3u8", "360p.m3u8"]
# The source's keyframe interval: a first multivariant listing less than this came before its second keyframe.
KEYFRAME_INTERVAL_S = 1.0
HLSJS_SECONDS = 10  # at 854x480: the bench follows the 360p rung below the bridged 480p top
FAST_START = {"SLUICE_TRANSCODE_FAST_START": "true"}


@pytest.fixture(scope="module")
def run() -> tuple[LiveRun, dict]:
    workdir = ARTIFACTS / "fast_start"
    seen: dict = {}

    def watch(gw, pubs):
        seen.update(lc.watch_multivariant(gw.hls_url(KEY), len(WANT), 15))

    def publisher(gw):
        return ffmpeg_cmd(gw.rtmp_url(KEY), 20, size="854x480", gop=30)

    # The gateway takes the override from its environment (live_run starts it with ours).
    os.environ.update(FAST_START)
    try:
        live = live_run(workdir, KEY, publisher, follow_seconds=10, min_variants=len(WANT), during=watch,
                        stop_gateway=True, gateway_args=FAST_SEGMENTS)
    finally:
        for k in FAST_START:
            os.environ.pop(k, None)
    return live, seen


def test_the_bridged_top_rendition_is_served_as_video_with_independent_segments(run):
    live, seen = run
    first = seen.get("first") or ""
    assert "video.m3u8" in first and "480p.m3u8" not in first and "#EXT-X-INDEPENDENT-SEGMENTS" in first, first
    rungs = lc.video_rungs(live.follow)
    assert [r.uri for r in rungs] == WANT, f"followed {[r.uri for r in rungs]}\n{live.context()}"
    top = rungs[0]
    # One init section for the encodes and the source's frames: both encoders' SPS, told apart by id.
    assert len(lc.avcc_sps(top.init_bytes())) == 2, lc.avcc_sps(top.init_bytes())
    log = live.gateway.log()
    assert "fast start: the top rendition now carries the source's own frames" in log, log[-3000:]
    for rung in rungs:
        segs = rung.rf.segments
        assert len(segs) >= 5, f"{rung.uri}: only {len(segs)} segments\n{live.context()}"
        bad = {m: p for m in sorted(segs)
               if (p := _segment_decodes_alone(rung, m, ARTIFACTS / "fast_start" / f"alone-{rung.label}-{m}.mp4"))}
        assert not bad, f"{rung.uri}: segments that do not decode on their own: {bad}"
    # The first segment of every rendition ends at the early cut (0.4 s), before the source's second keyframe.
    for rung in rungs:
        first_msn = min(rung.rf.segments)
        assert rung.rf.segments[first_msn].duration < 0.45, (rung.uri, first_msn, rung.rf.segments[first_msn].duration)


def test_fast_start_validates(run):
    live, _ = run
    assert_playlists_valid(live)
    assert_media_valid(live)


@pytest.fixture(scope="module")
def hlsjs():
    return benchplayers.run_hlsjs(ARTIFACTS / "fast-start-hlsjs", "rtmp-llhls-ladder", "854x480", HLSJS_SECONDS,
                                  env=FAST_START)


def test_hlsjs_opened_at_publish_plays_from_a_first_playlist_shorter_than_a_keyframe_interval(hlsjs):
    row, trace = hlsjs
    edge, first = benchplayers.hlsjs_first_playlist_edge(trace)
    assert edge < KEYFRAME_INTERVAL_S * 0.9, f"hls.js's first playlist already held {edge} s: {first}"
    # Debug build, loaded (3 runs, 15:22 UTC 2026-11-28): 0.87-1.29 s.
    assert row["publishToFirstFrameMs"] is not None and row["publishToFirstFrameMs"] <= 2_500, row
    benchplayers.assert_hlsjs_played_cleanly(row, trace, HLSJS_SECONDS)

"""RTMP from FFmpeg -> LL-HLS, followed like hls.js, every response and every byte checked."""
from __future__ import annotations

import pytest

from e2ecommon import assert_http_valid, assert_media_valid, assert_playlists_valid, assert_stream_followed
from procs import ARTIFACTS, FAST_SEGMENTS, ffmpeg_cmd, format_violations
from session import live_run

KEY = "e2e-ffmpeg"


@pytest.fixture(scope="module")
def run():
    return live_run(ARTIFACTS / "rtmp_ffmpeg", KEY, lambda gw: ffmpeg_cmd(gw.rtmp_url(KEY), 12),
                    follow_seconds=10, probe=True, gateway_args=FAST_SEGMENTS)


def test_stream_is_followed_with_blocking_reloads(run):
    assert_stream_followed(run)
    assert any(rf.delta_count for rf in run.follow.renditions.values()) or not any(
        "CAN-SKIP-UNTIL" in (rf.history.last.server_control if rf.history.last else {})
        for rf in run.follow.renditions.values()), "CAN-SKIP-UNTIL advertised but no delta update was served"
    assert all(rf.report_checks for rf in run.follow.renditions.values())


def test_every_playlist_response_validates(run):
    assert_playlists_valid(run)


def test_http_headers(run):
    assert_http_valid(run)


def test_server_blocking_rules(run):
    assert run.probe is not None, f"probes did not run\n{run.context()}"
    print("\n".join(run.probe.notes))
    vs = [v for v in run.probe.violations if v.rule != "HTTP"]
    assert not vs, f"{len(vs)} server-behaviour violations:\n{format_violations(vs)}"


def test_media_decodes_and_matches_playlists(run):
    assert_media_valid(run)
    video = run.analysis.summaries["video"]
    assert (video.width, video.height) == (1280, 720)


def test_part_and_segment_cadence(run):
    vs = []
    for rf in run.follow.renditions.values():
        vs += rf.history.cadence_violations()
    assert not vs, format_violations(vs)


def test_latency_probe(run):
    summary = run.follow.latency_summary()
    print("\nlatency (part listed vs its PDT end):\n" + summary)
    (ARTIFACTS / "rtmp_ffmpeg" / "latency.txt").write_text(summary + "\n")
    assert summary, "no latency samples"


def test_m3u8_library_agrees_with_our_parser(run):
    import m3u8
    for name, rf in run.follow.renditions.items():
        ours = rf.history.last
        theirs = m3u8.loads(ours.text)
        assert theirs.media_sequence == ours.media_sequence
        # m3u8 lists the unfinished segment (trailing parts) as a segment without a URI.
        assert [s.uri for s in theirs.segments if s.uri] == [s.uri for s in ours.segments]
        assert theirs.target_duration == ours.target_duration


def test_summary(run):
    """Prints what the run exercised (always passes once the stream was followed)."""
    for name, rf in run.follow.renditions.items():
        print(f"{name}: {len(rf.playlists)} playlists, {len(rf.blocking)} blocking, {rf.delta_count} deltas, "
              f"{rf.report_checks} report checks, {len(rf.parts)} parts, {len(rf.segments)} segments, "
              f"{rf.withdrawn_checked} withdrawn hints checked, {rf._removed_checked} removed parts re-fetched")
    assert run.follow.renditions

"""`sluice publish testsrc http://…/whip/KEY` (our own WHIP publisher: ICE controlling, DTLS client, SRTP, H.264 +
Opus) -> `sluice serve` -> LL-HLS: validated and decoded like the RTMP and third-party WHIP publishers."""
from __future__ import annotations

import pytest

from e2ecommon import assert_http_valid, assert_media_valid, assert_playlists_valid, assert_stream_followed
from procs import ARTIFACTS, FAST_SEGMENTS, free_port, sluice_publish_cmd
from session import live_run

KEY = "e2e-whip-publish"


@pytest.fixture(scope="module")
def run():
    args = FAST_SEGMENTS + ["--webrtc-port", str(free_port()), "--transcode", "off"]
    result = live_run(ARTIFACTS / "whip_sluice_publish", KEY,
                      lambda gw: sluice_publish_cmd(f"http://127.0.0.1:{gw.http_port}/whip/{KEY}", 14),
                      follow_seconds=10, gateway_args=args, publisher_grace=20)
    return result


def test_publisher_exits_cleanly_after_delete(run):
    p = run.publishers[0]
    log = p.log()
    assert p.proc.returncode == 0, f"sluice publish exited {p.proc.returncode}\n{log[-2000:]}"
    assert "(audio sent as Opus)" in log and "Opus)" in log, log[-2000:]
    sent = next(line for line in log.splitlines() if line.startswith("Sent "))
    assert int(sent.split("(")[1].split()[0]) >= 14 * 30 - 2, sent  # ~14 s of 30 fps video


def test_gateway_took_the_session_through_dtls_and_delete(run):
    log = run.gateway.log()
    assert "WHIP DTLS connected" in log and f"stream={KEY}" in log, log[-3000:]
    assert "WHIP session ended by DELETE" in log, log[-3000:]


def test_stream_is_followed_with_blocking_reloads(run):
    assert_stream_followed(run)


def test_every_playlist_response_validates(run):
    assert_playlists_valid(run)


def test_http_headers(run):
    assert_http_valid(run)


def test_video_and_audio_decode_and_match_playlists(run):
    assert_media_valid(run)
    summaries = run.analysis.summaries
    video = summaries["video"]
    assert (video.width, video.height) == (1280, 720)
    audio = [s for s in summaries.values() if s.handler == "soun"]
    assert audio and all(s.decoded_frames > 0 for s in audio), summaries

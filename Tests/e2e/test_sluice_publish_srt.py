"""`sluice publish testsrc srt://…` (our MPEG-TS muxer over a libsrt caller) -> LL-HLS that validates and decodes;
a stream id asking to play (`m=request`) is refused before connecting, with the gateway's own reason."""
from __future__ import annotations

import subprocess

import pytest

from e2ecommon import assert_media_valid, assert_playlists_valid, assert_stream_followed
from procs import ARTIFACTS, FAST_SEGMENTS, SLUICE, sluice_publish_cmd
from session import live_run

KEY = "e2e-sluice-publish-srt"


@pytest.fixture(scope="module")
def run():
    # 640x360: the publisher encodes in real time beside the gateway on shared cores.
    return live_run(ARTIFACTS / "sluice_publish_srt", KEY,
                    lambda gw: sluice_publish_cmd(gw.srt_url(f"#!::r=live/{KEY},m=publish", latency="120"), 12)
                    + ["--size", "640x360"],
                    follow_seconds=10, gateway_args=FAST_SEGMENTS)


def test_stream_is_followed_with_blocking_reloads(run):
    assert_stream_followed(run)


def test_every_playlist_response_validates(run):
    assert_playlists_valid(run)


def test_media_decodes_and_matches_playlists(run):
    assert_media_valid(run)


def test_publisher_reports_what_it_sent_and_the_gateway_took_it_over_srt(run):
    p = run.publishers[0]
    assert p.proc.returncode == 0, f"sluice publish exited {p.proc.returncode}\n{p.log()[-2000:]}"
    assert "Sent " in p.log() and " video, " in p.log(), p.log()[-2000:]
    started = [l for l in run.gateway.log().splitlines() if "SRT publish started" in l and KEY in l]
    assert started and "latency_ms=120" in started[0], run.gateway.log()[-2000:]


def test_a_play_request_stream_id_is_refused_with_the_reason():
    r = subprocess.run([str(SLUICE), "publish", "testsrc", "srt://127.0.0.1:9?streamid=#!::r=live/x,m=request",
                        "--duration", "1"], capture_output=True, text=True, timeout=30)
    assert r.returncode != 0
    assert "mode 'request' refused: only m=publish is served" in r.stderr + r.stdout, r.stderr

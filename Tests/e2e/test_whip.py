"""WHIP (RFC 9725) from aiortc 1.16 -> LL-HLS: H.264 + Opus in over ICE-lite/DTLS/SRTP, AAC out, followed like hls.js."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from e2ecommon import assert_http_valid, assert_media_valid, assert_playlists_valid, assert_stream_followed
from procs import ARTIFACTS, FAST_SEGMENTS, free_port
from session import live_run

KEY = "e2e-whip-aiortc"
PUBLISHER = Path(__file__).with_name("whip_aiortc.py")


@pytest.fixture(scope="module")
def run():
    args = FAST_SEGMENTS + ["--webrtc-port", str(free_port()), "--transcode", "off"]
    return live_run(ARTIFACTS / "whip_aiortc", KEY,
                    lambda gw: [sys.executable, str(PUBLISHER), f"http://127.0.0.1:{gw.http_port}/whip/{KEY}",
                                "--seconds", "14"],
                    follow_seconds=10, gateway_args=args, publisher_grace=20)


def publisher_events(run) -> list[dict]:
    text = (ARTIFACTS / "whip_aiortc" / "publisher.log").read_text(errors="replace")
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_whip_post_answers_201_and_the_session_connects(run):
    events = publisher_events(run)
    created = next((e for e in events if "status" in e), None)
    assert created and created["status"] == 201, f"{events}\n{run.context()}"
    assert created["location"].startswith(f"/whip/{KEY}/") and created["etag"], events
    done = next((e for e in events if e.get("done")), None)
    assert done and done["state"] == "connected", f"{events}\n{run.context()}"
    assert done["videoPackets"] > 300 and done["audioPackets"] > 300, done
    assert {"deleted": 200} in events, events


def test_stream_is_followed_with_blocking_reloads(run):
    assert_stream_followed(run)


def test_every_playlist_response_validates(run):
    assert_playlists_valid(run)


def test_http_headers(run):
    assert_http_valid(run)


def test_media_decodes_and_matches_playlists(run):
    assert_media_valid(run)
    video = run.analysis.summaries["video"]
    assert (video.width, video.height) == (640, 360)


def test_gateway_logged_the_session_with_key_and_id(run):
    log = run.gateway.log()
    assert "WHIP session created" in log and f"stream={KEY}" in log, log[-3000:]
    assert "WHIP session ended" in log, log[-3000:]

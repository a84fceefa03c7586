"""Headless Chromium publishes over WHIP from the gateway's `/publish` page (fake camera + microphone) into LL-HLS.

The page is the publisher (getUserMedia, H.264 + Opus, non-trickle POST, DELETE on Stop), driven by
whip_chromium.py. The stream is followed like hls.js and validated as in test_whip.py; ffprobe decodes video and
AAC; `/` lists it while it runs; the page's connection state reads "connected"; Stop ends the session.
Screenshots: .build/e2e-artifacts/whip_chromium/whip-chromium-*.png.
"""
from __future__ import annotations

import re

import json
import os
import sys
from pathlib import Path

import pytest

from e2ecommon import assert_http_valid, assert_media_valid, assert_playlists_valid, assert_stream_followed
from procs import ARTIFACTS, FAST_SEGMENTS, free_port
from session import live_run
from whip_chromium import CHROMEDRIVER, CHROMIUM

KEY = "e2e-whip-chromium"
SCRIPT = Path(__file__).with_name("whip_chromium.py")
WORKDIR = ARTIFACTS / "whip_chromium"


@pytest.fixture(scope="module")
def run():
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("chromium or /usr/bin/chromedriver is not installed")
    args = FAST_SEGMENTS + ["--webrtc-port", str(free_port()), "--transcode", "off"]
    return live_run(WORKDIR, KEY,
                    lambda gw: [sys.executable, str(SCRIPT), f"http://127.0.0.1:{gw.http_port}", KEY,
                                "--seconds", "14", "--shots", str(WORKDIR)],
                    follow_seconds=10, gateway_args=args, publisher_grace=45,
                    # Slate off: the stream ends when the browser's session is deleted.
                    gateway_env={"SLUICE_INGEST_SLATE": "false"})


def events(run) -> list[dict]:
    text = (WORKDIR / "publisher.log").read_text(errors="replace")
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def done(run) -> dict:
    return next((e for e in events(run) if e.get("done")), {})


def test_page_connects_and_shows_connected(run):
    d = done(run)
    assert d.get("connected"), f"{events(run)}\n{run.context()}"
    assert d["shown"] == "connected" and not d["error"], d
    states = [e["state"] for e in events(run) if "state" in e]
    # Every transport layer the page shows reached its working state, and the POST got its 201.
    assert any(s["ice"] in ("connected", "completed") and s["dtls"] == "connected" and s["gathering"] == "complete"
               for s in states), states
    assert any(s["post"] == 201 and (s["location"] or "").startswith("http://127.0.0.1:") for s in states), states


def test_page_published_for_at_least_ten_seconds(run):
    d = done(run)
    assert d.get("stillConnected") and d["connectedSeconds"] >= 10, d
    assert d["bytesSent"] > 200_000, d


def test_index_lists_the_stream_while_it_runs(run):
    row = next((e["index"] for e in events(run) if "index" in e), None)
    assert row, f"/ did not list {KEY}: {events(run)}"
    assert row["href"] == f"/watch/{KEY}" and "live" in row["text"], row


def test_stop_deletes_the_session_and_the_stream_ends(run):
    d = done(run)
    assert d.get("deleted") == 200 and d["finalState"] == "stopped", d
    assert d.get("ended") in ("reconnecting", "ended", None), d
    log = run.gateway.log()
    assert "WHIP session created" in log and f"stream={KEY}" in log, log[-3000:]
    assert "WHIP session ended by DELETE" in log, log[-3000:]


def test_stream_is_followed_with_blocking_reloads(run):
    assert_stream_followed(run)


def _short_part(v) -> bool:
    return v.rule == "P3" and "< 0.85 x PART-TARGET" in v.message


def test_every_playlist_response_validates(run):
    # Every rule strictly, except P3's SHOULD that parts fill 85 % of PART-TARGET: a browser's encoder varies its
    # frame rate (ramp-up at start, a skipped frame under load), and a frame that comes late cannot join a part
    # without overrunning PART-TARGET (a MUST), so such a part closes short. Those must stay rare.
    assert_playlists_valid(run, excuse=_short_part)
    short = {re.search(r"part (\d+\.\d+) DURATION", v.message).group(1)
             for v in run.violations(exclude=("HTTP", "M11")) if _short_part(v)}
    parts = len(run.follow.renditions["video"].parts)
    print(f"short parts: {sorted(short)} of {parts}")
    assert parts >= 40 and len(short) <= max(3, parts // 20), f"{len(short)} short parts of {parts}: {sorted(short)}"


def test_http_headers(run):
    assert_http_valid(run)


def test_media_decodes_video_and_audio(run):
    assert_media_valid(run)
    summaries = run.analysis.summaries
    assert summaries["video"].width > 0 and summaries["video"].decoded_frames > 0, summaries
    assert any(name.startswith("audio") and s.decoded_frames > 0 for name, s in summaries.items()), summaries


def test_ffprobe_decodes_video_and_audio_despite_the_gap(run):
    """What must hold today: both tracks decode, every frame the playlists promise (whatever the keyframe gap)."""
    summaries = run.analysis.summaries
    video = summaries["video"]
    assert (video.width, video.height) == (640, 360) and video.decoded_frames >= 10 * 15, video
    assert video.decoded_frames == video.expected_frames, video
    audio = [s for name, s in summaries.items() if name.startswith("audio")]
    assert audio and audio[0].decoded_frames >= 10 * 46 and audio[0].decoded_frames == audio[0].expected_frames, audio

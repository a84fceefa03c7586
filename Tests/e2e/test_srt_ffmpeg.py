"""SRT from the Debian ffmpeg CLI (MPEG-TS over libsrt, H.264 with B-frames + AAC) -> LL-HLS that validates and
decodes, with libsrt's link statistics in /metrics: the same checks as the RTMP slice."""
from __future__ import annotations

import json
import re
import subprocess

import pytest
import requests

from e2ecommon import assert_media_valid, assert_playlists_valid, assert_stream_followed
from mediacheck import parse_fragments
from procs import ARTIFACTS, FAST_SEGMENTS, SLUICE
from session import live_run
from srtpeers import srt_ffmpeg_cmd

KEY = "e2e-srt"
METRICS: dict[str, str] = {}


def _publish(gw):
    # ffmpeg's latency is in µs: 120 ms, as the gateway's default window.
    return srt_ffmpeg_cmd(gw.srt_url(f"#!::r=live/{KEY},m=publish", latency="120000"), 13, bframes=2)


def _scrape(gw, pubs):
    # While the publisher still sends: the SRT series exist only for a live session's stream.
    import time
    time.sleep(6)
    base = f"http://127.0.0.1:{gw.http_port}"
    METRICS["text"] = requests.get(f"{base}/metrics", timeout=5).text
    METRICS["api"] = requests.get(f"{base}/api/streams", timeout=5).text
    METRICS["stats"] = subprocess.run([str(SLUICE), "stats", base, "--once"], capture_output=True, text=True,
                                      timeout=30).stdout


@pytest.fixture(scope="module")
def run():
    return live_run(ARTIFACTS / "srt_ffmpeg", KEY, _publish, follow_seconds=10, during=_scrape,
                    gateway_args=FAST_SEGMENTS)


def test_stream_is_followed_with_blocking_reloads(run):
    assert_stream_followed(run)


def test_every_playlist_response_validates(run):
    assert_playlists_valid(run)


def test_media_decodes_and_matches_playlists(run):
    assert_media_valid(run)
    video = run.analysis.summaries["video"]
    assert (video.width, video.height) == (1280, 720)
    assert video.decoded_seconds >= 5, f"only {video.decoded_seconds:.1f} s decoded"


def test_b_frames_survive_into_the_fmp4_parts(run):
    offsets = [s.cto for p in run.follow.renditions["video"].parts.values()
               for f in parse_fragments(p.data) for s in f.samples]
    assert offsets, "no video samples"
    assert any(o != 0 for o in offsets), "every composition offset is 0: B-frame reordering was lost"


def test_gateway_logged_the_srt_session(run):
    log = run.gateway.log()
    assert "SRT ingest listening" in log
    started = [l for l in log.splitlines() if "SRT publish started" in l]
    assert started and KEY in started[0], f"no SRT publish start for {KEY}\n{log[-2000:]}"


def test_srt_link_statistics_are_in_metrics(run):
    text = METRICS.get("text", "")
    assert text, "metrics were not scraped"
    for name in ("sluice_srt_sessions", "sluice_srt_rtt_seconds", "sluice_srt_latency_seconds",
                 "sluice_srt_packets_received_total", "sluice_srt_packets_lost_total",
                 "sluice_srt_packets_retransmitted_total", "sluice_srt_receive_bits_per_second"):
        assert re.search(rf'^{name}\{{stream="{KEY}"\}} ', text, re.M), f"{name} missing:\n{text[:3000]}"
    received = re.search(rf'^sluice_srt_packets_received_total\{{stream="{KEY}"\}} (\S+)', text, re.M)
    assert float(received.group(1)) > 100
    latency = re.search(rf'^sluice_srt_latency_seconds\{{stream="{KEY}"\}} (\S+)', text, re.M)
    assert abs(float(latency.group(1)) - 0.120) < 0.001
    # The hub's ingest hop for the SRT stream: same metric every protocol feeds.
    assert re.search(rf'sluice_hop_latency_seconds_count\{{hop="ingest",stream="{KEY}"', text), "no ingest hop"


def test_srt_link_figures_are_in_api_streams_and_sluice_stats(run):
    streams = json.loads(METRICS["api"])
    streams = streams.get("streams", streams) if isinstance(streams, dict) else streams
    mine = [s for s in streams if s.get("key") == KEY]
    assert mine and mine[0].get("srt"), f"no srt object for {KEY}: {METRICS['api'][:2000]}"
    srt = mine[0]["srt"]
    assert srt["sessions"] == 1 and srt["latencyMs"] == 120 and srt["packetsReceived"] > 100
    line = [l for l in METRICS["stats"].splitlines() if l.strip().startswith("srt:")]
    assert line and "latency 120 ms" in line[0], METRICS["stats"]

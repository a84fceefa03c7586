"""WHIP (RFC 9725) from aiortc 1.16 and FFmpeg 9's WHIP muxer -> LL-HLS: H.264 + Opus in over ICE-lite/DTLS/SRTP,
AAC out, followed like hls.js. FFmpeg offers a=setup:passive (we are the DTLS client) and only generic NACK."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest
import requests

from e2ecommon import assert_http_valid, assert_media_valid, assert_playlists_valid, assert_stream_followed
from procs import ARTIFACTS, FAST_SEGMENTS, free_port
from session import live_run
from waiting import eventually

KEY = "e2e-whip"
PUBLISHER = Path(__file__).with_name("whip_aiortc.py")


def ffmpeg9() -> str:
    try:
        import imageio_ffmpeg
    except ImportError:
        pytest.fail("imageio-ffmpeg (FFmpeg 9 with the WHIP muxer) is not installed: pip install -r Tests/e2e/requirements.txt")
    return imageio_ffmpeg.get_ffmpeg_exe()


def publisher(name: str, url: str) -> list[str]:
    if name == "aiortc":
        return [sys.executable, str(PUBLISHER), url, "--seconds", "14"]
    return [ffmpeg9(), "-hide_banner", "-loglevel", "warning", "-re",
            "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-t", "14", "-c:v", "libx264", "-profile:v", "baseline", "-preset", "ultrafast", "-tune", "zerolatency",
            "-g", "30", "-bf", "0", "-c:a", "libopus", "-ar", "48000", "-ac", "2", "-f", "whip", url]


def ingest_sample(text: str, metric: str, rendition: str, *labels: str) -> float:
    """The value of `metric` for this stream's `rendition` (and `labels`) in a /metrics exposition, 0 when absent."""
    want = [f'stream="{KEY}"', f'rendition="{rendition}"', *labels]
    for line in text.splitlines():
        if line.startswith(metric + "{") and all(w in line for w in want):
            return float(line.rsplit(" ", 1)[1])
    return 0.0


def counted(text: str) -> bool:
    """Video frames, audio bytes and the video ingest hop all counted: audio's first packet may come after video's."""
    return (ingest_sample(text, "sluice_frames_in_total", "video") > 0
            and ingest_sample(text, "sluice_bytes_in_total", "audio") > 0
            and ingest_sample(text, "sluice_hop_latency_seconds_count", "video", 'hop="ingest"') > 0)


def metrics_once_ingested(box: list[str]):
    """While publishing: /metrics as soon as the hub has counted WHIP video and audio (up to 15 s)."""
    def during(gw, _pubs):
        text = eventually(lambda: requests.get(f"http://127.0.0.1:{gw.http_port}/metrics", timeout=5).text, 15,
                          until=lambda t: counted(t or ""), period=0.2, ignoring=requests.RequestException)
        box.append(text or "")
    return during


@pytest.fixture(scope="module", params=["aiortc", "ffmpeg9"])
def run(request):
    args = FAST_SEGMENTS + ["--webrtc-port", str(free_port()), "--transcode", "off"]
    metrics: list[str] = []
    result = live_run(ARTIFACTS / f"whip_{request.param}", KEY,
                      lambda gw: publisher(request.param, f"http://127.0.0.1:{gw.http_port}/whip/{KEY}"),
                      follow_seconds=10, gateway_args=args, publisher_grace=20, during=metrics_once_ingested(metrics))
    result.notes.append(request.param)
    result.notes.append(metrics[0] if metrics else "")
    return result


def publisher_events(run) -> list[dict]:
    text = (ARTIFACTS / f"whip_{run.notes[0]}" / "publisher.log").read_text(errors="replace")
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def test_whip_post_answers_201_and_the_session_connects(run):
    if run.notes[0] != "aiortc":
        log = run.gateway.log()
        assert "WHIP DTLS connected" in log and "dtls_role=client" in log, log[-3000:]
        return
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


def test_ingest_is_counted_where_frames_enter_the_hub(run):
    """WHIP carries no telemetry code of its own: the hub's one ingest path counts its frames and ingest hop."""
    text = run.notes[1]
    assert ingest_sample(text, "sluice_frames_in_total", "video") > 0, text[-3000:]
    assert ingest_sample(text, "sluice_bytes_in_total", "audio") > 0, text[-3000:]
    assert ingest_sample(text, "sluice_hop_latency_seconds_count", "video", 'hop="ingest"') > 0, text[-3000:]

"""Telemetry (issue 4): every hop of every frame shows up in GET /metrics after a short publish.

FFmpeg publishes ~6 s of 720p30 + AAC into `sluice serve --transcode on`; the test fetches a few parts of the
source and of a rung, then reads /metrics (Prometheus text 0.0.4), /api/streams and `sluice stats --once`.
"""
from __future__ import annotations

import re
import subprocess
import time
from urllib.parse import urljoin

import requests

from procs import FAST_SEGMENTS, SLUICE, Gateway, ffmpeg_cmd, sluice_publish_cmd
from waiting import eventually

KEY = "e2e-metrics"
SAMPLE = re.compile(r'^(?P<name>[a-z_]+)(?:\{(?P<labels>[^}]*)\})? (?P<value>\S+)$')


def parse_metrics(text: str) -> list[tuple[str, dict[str, str], float]]:
    out = []
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        m = SAMPLE.match(line)
        assert m, f"not a Prometheus sample line: {line!r}"
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m["labels"] or ""))
        out.append((m["name"], labels, float(m["value"])))
    return out


def value(samples, name: str, **want) -> float:
    return sum(v for n, labels, v in samples if n == name and all(labels.get(k) == x for k, x in want.items()))


def test_every_hop_appears_in_metrics(workdir, publishers):
    gw = Gateway(workdir, FAST_SEGMENTS + ["--transcode", "on"]).start()
    try:
        base = f"http://127.0.0.1:{gw.http_port}"
        pub = publishers(ffmpeg_cmd(gw.rtmp_url(KEY), 6))
        master = eventually(lambda: (r := requests.get(gw.hls_url(KEY), timeout=10)).status_code == 200
                            and "480p" in r.text and r.text, 20, period=0.2)
        assert master, "timed out waiting for a multivariant listing the ladder"
        (workdir / "index.m3u8").write_text(master)
        fetched = {}
        for rendition in ("video", "480p"):
            url = urljoin(gw.hls_url(KEY), f"{rendition}.m3u8")
            playlist = eventually(lambda: (r := requests.get(url, timeout=10)).status_code == 200
                                  and "#EXT-X-PART:" in r.text and r.text, 15, period=0.2)
            assert playlist, f"timed out waiting for the {rendition} playlist with parts"
            parts = re.findall(r'#EXT-X-PART:[^\n]*URI="([^"]+)"', playlist)
            for uri in parts[-3:]:
                assert requests.get(urljoin(url, uri), timeout=10).status_code == 200
            fetched[rendition] = len(parts[-3:])
            # One blocking reload for the next part, as an LL-HLS player does.
            msn = max(int(m) for m in re.findall(r'#EXT-X-MEDIA-SEQUENCE:(\d+)', playlist))
            requests.get(f"{url}?_HLS_msn={msn + 1}", timeout=10)
        pub.wait(20)

        r = requests.get(f"{base}/metrics", timeout=10)
        assert r.status_code == 200
        assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
        (workdir / "metrics.txt").write_text(r.text)
        samples = parse_metrics(r.text)
        count = "sluice_hop_latency_seconds_count"
        for hop, renditions in {"ingest": ["video", "audio"], "decode": ["video"], "encode": ["480p", "360p"],
                                "package": ["video", "480p", "360p", "audio"], "deliver": ["video", "480p"]}.items():
            for rendition in renditions:
                n = value(samples, count, hop=hop, stream=KEY, rendition=rendition)
                assert n > 0, f"no {hop} samples for {rendition}:\n{r.text[:4000]}"
        assert value(samples, count, hop="deliver", stream=KEY, rendition="video") <= fetched["video"] + 1
        assert value(samples, "sluice_frames_in_total", stream=KEY, rendition="video") >= 120
        assert value(samples, "sluice_bytes_in_total", stream=KEY, rendition="audio") > 0
        assert value(samples, "sluice_parts_published_total", stream=KEY, rendition="480p") > 10
        assert value(samples, "sluice_frames_out_total", stream=KEY, rendition="360p") > 60
        assert value(samples, "sluice_http_requests_total", stream=KEY, kind="part") == sum(fetched.values())
        assert value(samples, "sluice_http_requests_total", stream=KEY, kind="playlist-blocking") == 2
        assert value(samples, "sluice_http_requests_total", stream=KEY, kind="multivariant") >= 1
        assert any(n == "sluice_viewers" and labels.get("stream") == KEY for n, labels, _ in samples)

        streams = requests.get(f"{base}/api/streams", timeout=10).json()
        (workdir / "streams.json").write_text(str(streams))
        s = next(s for s in streams if s["key"] == KEY)
        assert s["packageSamples"] > 0 and s["packageP50Ms"] is not None  # the fields earlier tests read
        by_name = {r["name"]: r for r in s["renditions"]}
        assert list(by_name)[0] == "video" and "480p" in by_name and "audio" in by_name
        assert by_name["480p"]["width"] == 854 and by_name["480p"]["height"] == 480
        assert by_name["480p"]["codec"].startswith("avc1.")
        for hop in ("p50Ms", "p90Ms", "p99Ms"):
            assert by_name["480p"]["hops"]["encode"][hop] > 0
        assert by_name["video"]["hops"]["ingest"]["count"] > 0

        stats = subprocess.run([str(SLUICE), "stats", base, "--once"], capture_output=True, text=True, timeout=30)
        (workdir / "stats.txt").write_text(stats.stdout + stats.stderr)
        assert stats.returncode == 0, stats.stderr
        assert KEY in stats.stdout and "480p" in stats.stdout and "package" in stats.stdout
        assert "\x1b[" not in stats.stdout  # not a TTY: plain lines
    finally:
        gw.stop()


def test_capture_clock_feeds_the_available_hop(workdir, publishers):
    """`sluice publish` writes its capture clock as SEI into every video frame: ingest reads it, the ladder keeps it
    on each rung's frames, and the packager records publisher capture → part published as `available`."""
    gw = Gateway(workdir, FAST_SEGMENTS + ["--transcode", "on"]).start()
    try:
        pub = publishers(sluice_publish_cmd(gw.rtmp_url(KEY), 5))
        assert pub.wait(40) == 0, pub.log()[-2000:]
        time.sleep(1)
        text = requests.get(f"http://127.0.0.1:{gw.http_port}/metrics", timeout=10).text
        (workdir / "metrics.txt").write_text(text)
        samples = parse_metrics(text)
        for rendition in ("video", "480p", "360p"):
            n = value(samples, "sluice_hop_latency_seconds_count", hop="available", stream=KEY, rendition=rendition)
            assert n >= 100, f"{n} available samples for {rendition}"
            # Capture → published can't be negative or absurd on one host: it stays under the 10 s bucket.
            under = value(samples, "sluice_hop_latency_seconds_bucket", hop="available", stream=KEY, rendition=rendition,
                          le="10.0")
            assert under == n
    finally:
        gw.stop()

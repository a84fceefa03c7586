"""Many WHEP viewers of one stream. 10 aiortc viewers (one process, one event loop) watch an RTMP stream with
B-frames and AAC for 10 s; every one connects and decodes H.264 and Opus from the one shared feed, and the
stream's LL-HLS output keeps advancing meanwhile. aiortc decodes in Python, and 50 of them do not fit beside the
gateway on this 2-core machine: the 50-viewer case uses the bench's own WHEP client (`sluice bench --whep-viewers
50`: DTLS, SRTP, H.264 reassembly, no decode) against a separate `sluice serve`, while the test validates the same
stream's LL-HLS playlists."""
from __future__ import annotations

import json
import re
import subprocess
import sys
import time

import hlsvalidate as hv
from procs import FAST_SEGMENTS, SLUICE, Gateway, Publisher, ffmpeg_cmd, free_port
from test_whep import HERE, metric, request, run_client, wait_live
from waiting import eventually

KEY = "e2e-whep-many"
VIEWERS = 10


def media_sequence(gw: Gateway) -> int:
    _, _, text = request("GET", f"http://127.0.0.1:{gw.http_port}/live/{KEY}/video.m3u8")
    m = re.search(r"#EXT-X-MEDIA-SEQUENCE:(\d+)", text)
    parts = len(re.findall(r"#EXT-X-PART:", text))
    assert m and parts > 0, text[:500]
    return int(m.group(1)) + text.count("#EXTINF")


def test_ten_viewers_share_one_feed_and_hls_goes_on(workdir):
    # Slate off: every frame a viewer gets carries the publisher's capture clock.
    gw = Gateway(workdir, FAST_SEGMENTS + ["--webrtc-port", str(free_port()), "--transcode", "off"],
                 env={"SLUICE_INGEST_SLATE": "false"}).start()
    pub = Publisher(ffmpeg_cmd(gw.rtmp_url(KEY), 60, bframes=2, size="320x240"), workdir / "publisher.log")
    try:
        wait_live(gw, KEY)
        time.sleep(1.5)
        before = media_sequence(gw)
        done, _ = run_client([sys.executable, str(HERE / "whep_aiortc.py"),
                              f"http://127.0.0.1:{gw.http_port}/whep/{KEY}", "--seconds", "10",
                              "--viewers", str(VIEWERS)], workdir / "viewers.log", 120)
        after = media_sequence(gw)
        viewers = done.get("viewers", [])
        context = f"{[{k: v.get(k) for k in ('connected', 'videoFrames', 'audioFrames')} for v in viewers]}\n" \
                  f"{gw.log()[-2000:]}"
        assert len(viewers) == VIEWERS and all(v["connected"] for v in viewers), context
        # Python decoding ten pictures streams at once: ask every viewer for a third of 30 fps and of Opus's 50.
        assert all(v["videoFrames"] >= 10 * 10 and v["audioFrames"] >= 10 * 15 for v in viewers), context
        assert after - before >= 8, f"LL-HLS advanced {after - before} segments in 10+ s"
        # One feed: one WebRTC rung opened for all ten (viewers connecting inside its keyframe window start on the
        # join rung, a second encode while they join, and move onto this one).
        opened = [line for line in gw.log().splitlines() if "WHEP WebRTC rung opened" in line]
        assert sum("video_source=webrtc-rung" in line for line in opened) == 1, context
        assert all("video_source=webrtc-rung" in line or "video_source=join-rung" in line for line in opened), opened
        assert metric(gw, "sluice_whep_packets_dropped_total", stream=KEY, kind="video") == 0
    finally:
        pub.stop()
        gw.stop()


BENCH_VIEWERS = 50


def bench_stream(gw: Gateway, timeout: float = 30) -> str:
    """The key the bench publishes under (`bench-rtmp-whep-<random>`), once it is live."""
    def live_key():
        status, _, body = request("GET", f"http://127.0.0.1:{gw.http_port}/api/streams")
        if status != 200:
            return None
        return next((s["key"] for s in json.loads(body)
                     if s["key"].startswith("bench-rtmp-whep-") and s["state"] == "live"), None)

    key = eventually(live_key, timeout, period=0.25)
    assert key, f"the bench stream did not go live:\n{gw.log()[-2000:]}"
    return key


def test_fifty_bench_viewers_all_receive_and_hls_stays_valid(workdir):
    # Slate off: every frame a viewer gets carries the publisher's capture clock.
    gw = Gateway(workdir, FAST_SEGMENTS + ["--webrtc-port", str(free_port()), "--transcode", "off"],
                 env={"SLUICE_INGEST_SLATE": "false"}).start()
    out = workdir / "bench.json"
    cmd = [str(SLUICE), "bench", "--gateway", f"http://127.0.0.1:{gw.http_port}", "--rtmp", f"rtmp://127.0.0.1:{gw.rtmp_port}/live",
           "--gateway-pid", str(gw.proc.pid), "--scenarios", "rtmp-whep", "--whep-viewers", str(BENCH_VIEWERS),
           "--duration", "20", "--source", "640x360", "--json", str(out)]
    log = open(workdir / "bench.log", "w")
    bench = subprocess.Popen(cmd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    try:
        key = bench_stream(gw)
        url = f"http://127.0.0.1:{gw.http_port}/live/{key}/video.m3u8"
        history = hv.RenditionHistory("video")
        violations: list[str] = []
        seen = 0
        # The viewers join 10-12 s into the 20 s run: check the playlist from then until the publisher stops.
        time.sleep(9)
        end = time.monotonic() + 9
        while time.monotonic() < end:
            status, _, text = request("GET", url)
            assert status == 200, (status, text[:300])
            pl = hv.parse_media_playlist(text, url)
            violations += [str(v) for v in hv.check_media(pl)]
            history.update(pl, time.monotonic())
            seen = max(seen, pl.last_msn)
            time.sleep(0.3)
        dropped = metric(gw, "sluice_whep_packets_dropped_total", stream=key, kind="video")
        assert bench.wait(timeout=120) == 0, (workdir / "bench.log").read_text()[-3000:]
        violations += [str(v) for v in history.violations]
        assert not violations, violations[:10]
        report = json.loads(out.read_text())
        w = report["scenarios"][0]["whep"]
        context = f"{json.dumps(w)}\n{gw.log()[-2000:]}"
        assert w["viewers"] == BENCH_VIEWERS and w["receivingViewers"] == BENCH_VIEWERS, context
        # Every viewer, not only most: at least ~5 s of 30 fps each, every frame with its capture clock.
        assert w["fewestFramesPerViewer"] >= 150 and w["framesWithoutCapture"] == 0, context
        assert w["audioPacketsReceived"] >= BENCH_VIEWERS * 250, context
        assert w["video"] == ["passthrough"] and w["cpuOf"] == f"gateway pid {gw.proc.pid}", context
        assert w["glass"]["p50Ms"] < 1_000, context
        assert dropped == 0, context
    finally:
        if bench.poll() is None:
            bench.kill()
            bench.wait()
        log.close()
        gw.stop()

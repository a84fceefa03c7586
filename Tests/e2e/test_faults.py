"""Faults (issue 7): a publisher killed mid-part, viewers that vanish while blocked, viewers that never read,
and path traversal. Reconnect continuity is in test_bframes_reconnect.py, SIGTERM in test_shutdown.py."""
from __future__ import annotations

import signal
import socket
import subprocess
import time
from urllib.parse import urljoin

import pytest
import requests

import hlsvalidate as hv
import mediacheck as mc
from follower import wait_for_multivariant
from procs import FAST_SEGMENTS, Gateway, ffmpeg_cmd
from waiting import eventually

PASSTHROUGH = "transcode:\n  enabled: false\n"


def start_gateway(workdir, yaml: str = PASSTHROUGH) -> Gateway:
    cfg = workdir / "faults.yaml"
    cfg.write_text(yaml)
    return Gateway(workdir, FAST_SEGMENTS, config=cfg).start()


def media_url(gw: Gateway, key: str, timeout: float = 20) -> str:
    r = wait_for_multivariant(gw.hls_url(key), timeout)
    assert r is not None, gw.log()[-2000:]
    mv = hv.parse_multivariant(r.text, gw.hls_url(key))
    return urljoin(gw.hls_url(key), mv.variants[0][1])


def playlist(url: str) -> hv.MediaPlaylist:
    r = requests.get(url, timeout=10)
    assert r.status_code == 200, r.text
    return hv.parse_media_playlist(r.text, url)


def rss_kb(pid: int) -> int:
    with open(f"/proc/{pid}/status") as f:
        return next(int(l.split()[1]) for l in f if l.startswith("VmRSS:"))


def stream_info(gw: Gateway, key: str) -> dict:
    streams = requests.get(f"http://127.0.0.1:{gw.http_port}/api/streams", timeout=5).json()
    return next((s for s in streams if s.get("key") == key), {})


def test_publisher_killed_mid_part_never_leaves_a_half_part(workdir, publishers):
    gw = start_gateway(workdir)
    key = "faults-kill"
    try:
        pub = publishers(ffmpeg_cmd(gw.rtmp_url(key), 60, size="640x360"), "first")
        url = media_url(gw, key)
        time.sleep(4.1)  # 4.1 s at 200 ms parts: the kill lands inside a part.
        pub.stop(signal.SIGKILL)
        time.sleep(1.5)
        publishers(ffmpeg_cmd(gw.rtmp_url(key), 60, size="640x360"), "second")
        def after_discontinuity(p: hv.MediaPlaylist) -> int:
            idx = next((i for i, s in enumerate(p.segments) if s.discontinuity), None)
            return -1 if idx is None else len(p.segments) - idx

        pl = eventually(lambda: playlist(url), 20, until=lambda p: after_discontinuity(p) >= 3, period=0.5)
        assert any(s.discontinuity for s in pl.segments), f"no EXT-X-DISCONTINUITY after the reconnect:\n{pl.text}"

        # Every part still listed, from both publisher sessions, is whole: it parses, it decodes, and its media
        # lasts what its EXT-X-PART DURATION says (the part cut short by the kill is closed at its last frame).
        inits: dict[str, tuple[bytes, mc.Init]] = {}
        checked = 0
        for seg in pl.segments:
            if seg.map_uri not in inits:
                data = requests.get(urljoin(url, seg.map_uri), timeout=10).content
                inits[seg.map_uri] = (data, mc.parse_init(data))
            init_bytes, init = inits[seg.map_uri]
            track = next(iter(init.tracks.values()))
            joined, samples = b"", 0
            for part in seg.parts:
                if part.gap or part.uri is None:
                    continue
                data = requests.get(urljoin(url, part.uri), timeout=10).content
                media, violations, _ = mc.inspect_media(data, track)
                assert not violations, f"{part.uri}: {violations}"
                assert abs(media.duration - part.duration) <= 0.0015, \
                    f"{part.uri}: media lasts {media.duration:.4f} s, PART DURATION={part.duration_text}"
                joined, samples = joined + data, samples + media.samples
                checked += 1
            if not joined:
                continue
            # A part that is not INDEPENDENT decodes only after the ones before it: decode the segment's parts
            # in order from its IDR, and every sample of every part must come out as a frame.
            path = workdir / "segment.mp4"
            path.write_bytes(init_bytes + joined)
            frames, errors = mc.ffprobe_frames(path, "v:0")
            assert not errors and len(frames) == samples, \
                f"segment {seg.msn}: {len(frames)} frames decoded of {samples} ({errors})"
        assert checked >= 10, f"only {checked} parts checked:\n{pl.text}"
        print(f"{checked} parts whole across the kill; discontinuity at line {pl.discontinuity_lines}")
    finally:
        gw.stop()


def blocking_request(port: int, path: str) -> socket.socket:
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    return s


def test_viewers_disconnecting_while_blocked_leave_no_waiters(workdir, publishers):
    gw = start_gateway(workdir)
    key = "faults-blocked"
    try:
        publishers(ffmpeg_cmd(gw.rtmp_url(key), 60, size="320x240"))
        url = media_url(gw, key)
        pl = playlist(url)
        path = url.split(str(gw.http_port), 1)[1]
        baseline = rss_kb(gw.proc.pid)
        for round_ in range(5):
            msn = playlist(url).next_msn + 1
            socks = [blocking_request(gw.http_port, f"{path}?_HLS_msn={msn}") for _ in range(50)]
            time.sleep(0.3)
            for s in socks:
                s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")  # RST
                s.close()
        # Once the parts they waited for are out, nothing is left waiting and the server still answers.
        time.sleep(3)
        info = stream_info(gw, key)
        if "blockingRequestsWaiting" in info:
            assert info["blockingRequestsWaiting"] == 0, info
        assert requests.get(f"http://127.0.0.1:{gw.http_port}/healthz", timeout=5).status_code == 200
        nxt = playlist(url).next_msn
        r = requests.get(f"{url}?_HLS_msn={nxt}", timeout=10)
        assert r.status_code == 200
        grown = rss_kb(gw.proc.pid) - baseline
        print(f"250 abandoned blocking requests; RSS grew {grown} KiB")
        assert grown < 64 * 1024, f"RSS grew {grown} KiB after abandoned requests"
    finally:
        gw.stop()


def test_viewers_that_never_read_do_not_stall_ingest(workdir, publishers):
    gw = start_gateway(workdir)
    key = "faults-slow"
    try:
        pub = publishers(ffmpeg_cmd(gw.rtmp_url(key), 40, size="1280x720"))
        url = media_url(gw, key)
        time.sleep(2)
        pl = playlist(url)
        base = url.rsplit("/", 1)[0]
        seg_path = urljoin(url, pl.segments[-2].uri).split(str(gw.http_port), 1)[1]
        path = url.split(str(gw.http_port), 1)[1]
        stuck: list[socket.socket] = []
        for i in range(20):
            s = socket.socket()
            s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
            s.connect(("127.0.0.1", gw.http_port))
            # Pipelined requests for a whole segment, then never a read: the server's writes back up.
            s.sendall(f"GET {seg_path} HTTP/1.1\r\nHost: x\r\n\r\n".encode() * 20)
            s.sendall(f"GET {path}?_HLS_msn={pl.next_msn + 1} HTTP/1.1\r\nHost: x\r\n\r\n".encode())
            stuck.append(s)
        rss0 = rss_kb(gw.proc.pid)
        start_msn, t0 = playlist(url).next_msn, time.monotonic()
        time.sleep(10)
        advanced, elapsed = playlist(url).next_msn - start_msn, time.monotonic() - t0
        rss1 = rss_kb(gw.proc.pid)
        print(f"20 non-reading viewers: {advanced} segments in {elapsed:.1f} s; RSS {rss0} -> {rss1} KiB")
        # 1 s segments: live pace is ~10 in 10 s; a stalled ingest would add none.
        assert advanced >= 7, f"only {advanced} segments in {elapsed:.1f} s with slow viewers"
        assert rss1 - rss0 < 128 * 1024, f"RSS grew {rss1 - rss0} KiB while viewers did not read"
        assert pub.proc.poll() is None, "publisher stopped while viewers stalled"
        for s in stuck:
            s.close()
        assert requests.get(f"http://127.0.0.1:{gw.http_port}/healthz", timeout=5).status_code == 200
    finally:
        gw.stop()


TRAVERSALS = [
    "/live/../../etc/passwd",
    "/live/%2e%2e/%2e%2e/etc/passwd",
    "/live/..%2f..%2f..%2fetc%2fpasswd",
    "/live/%252e%252e/%252e%252e/etc/passwd",
    "/live/KEY/../../../etc/passwd",
    "/live/KEY/%2e%2e%2f%2e%2e%2fetc%2fpasswd/video/x.m4s",
    "/live/KEY/EPOCH/video/..%2f..%2f..%2f..%2fetc%2fpasswd",
    "/live/KEY/EPOCH/../../../../etc/passwd",
    "/../../../etc/passwd",
    "/pages/../../../../etc/passwd",
    "/pages/..%2f..%2f..%2fetc%2fpasswd",
    "/watch/..%2f..%2f..%2fetc%2fpasswd",
    "/live/..\\..\\etc\\passwd",
]


def raw_get(port: int, path: str) -> tuple[int, bytes]:
    """The exact path on the wire (requests would normalize the dots)."""
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
        data = b""
        while chunk := s.recv(65536):
            data += chunk
    status = int(data.split(b" ", 2)[1])
    return status, data


def test_path_traversal_attempts_are_404(workdir, publishers):
    gw = start_gateway(workdir)
    key = "faults-paths"
    try:
        publishers(ffmpeg_cmd(gw.rtmp_url(key), 30, size="320x240"))
        url = media_url(gw, key)
        pl = playlist(url)
        epoch = pl.segments[0].map_uri.split("/")[0]
        for t in TRAVERSALS:
            path = t.replace("KEY", key).replace("EPOCH", epoch)
            status, body = raw_get(gw.http_port, path)
            assert b"root:" not in body, f"{path} leaked /etc/passwd"
            assert status == 404, f"{path}: {status}\n{body[:300]!r}"
        assert requests.get(url, timeout=5).status_code == 200
    finally:
        gw.stop()

"""Adaptive bit rate over WebRTC (issue 18): Chromium watches an RTMP passthrough (854x480, 2.5 Mb/s, ladder on)
through a loopback UDP relay in this test that carries the gateway's SRTP at 1.2 Mb/s (a bottleneck queue: up to
300 ms waits, then drops). Chromium's receiver estimate (REMB) falls under what it is sent; the gateway must move it
onto the 360p ladder rung at that rung's next keyframe, on the same SSRC, and Chromium must keep presenting frames,
now 360 lines high. Once the relay lifts its limit, the viewer tries its own rendition again (the probe after 15 s
on the rung) and stays there. The same with an OBS-like source (250-frame keyframe interval, B-frames): the viewer
starts on the ladder's 480p rung (the passthrough has B-frames) and steps down from there.

Only SRTP media is shaped: STUN, DTLS and SRTCP pass at once, as on a link whose bottleneck is the media's own queue.
Artifacts: .build/e2e-artifacts/<test>/.
"""
from __future__ import annotations

import collections
import json
import os
import subprocess
import sys
import threading
import time

import pytest

from procs import Gateway, Publisher, free_port
from whip_chromium import CHROMEDRIVER, CHROMIUM
from test_whep import HERE, events, wait_live
from udp_relay import UDPRelay

KEY = "e2e-whep-abr"
LIMIT_BPS = 1_200_000
QUEUE_SECONDS = 0.3
WATCH_SECONDS = 40
LIFT_AFTER_STEP_DOWN_S = 6


class BottleneckRelay(UDPRelay):
    """Between one viewer and the gateway; the gateway's SRTP leaves it at `rate` bits per second through a
    drop-tail queue of `queue_seconds` (after `lift`, at once)."""

    def __init__(self, gateway_port: int, rate: int, queue_seconds: float):
        super().__init__(gateway_port)
        self.rate, self.queue_seconds = rate, queue_seconds
        self.queue: collections.deque[bytes] = collections.deque()
        self.queued_bytes = 0
        self.lock = threading.Lock()
        self.threads.append(threading.Thread(target=self._drain, daemon=True))

    def lift(self):
        with self.lock:
            self.rate = None

    def from_gateway(self, datagram: bytes, kind: str) -> None:
        with self.lock:
            if kind == "rtp" and (self.rate is not None or self.queue):
                if self.queued_bytes + len(datagram) > (self.rate or 10**9) * self.queue_seconds / 8:
                    self.dropped[kind] += 1
                else:
                    self.queue.append(datagram)
                    self.queued_bytes += len(datagram)
                return
        self.forwarded[kind] += 1
        self.send_to_peer(datagram)

    def _drain(self):
        """Sends queued packets at the rate (each waits its serialization time on the bottleneck)."""
        next_at = time.monotonic()
        while not self.stop.is_set():
            with self.lock:
                datagram = self.queue.popleft() if self.queue else None
                if datagram is not None:
                    self.queued_bytes -= len(datagram)
                rate = self.rate
            if datagram is None:
                time.sleep(0.002)
                next_at = time.monotonic()
                continue
            now = time.monotonic()
            if next_at > now:
                time.sleep(next_at - now)
            next_at = max(next_at, now) + (len(datagram) * 8 / rate if rate else 0)
            self.forwarded["rtp"] += 1
            try:
                self.send_to_peer(datagram)
            except OSError:
                return


# The source's x264 settings, and the rendition the viewer gets first: a 1 s GOP without B-frames qualifies the
# passthrough; OBS's defaults (keyframe interval "auto" = 250 frames, 2 B-frames) leave it the ladder's 480p rung.
SOURCES = {
    "x264-1s-gop": (["-tune", "zerolatency", "-g", "30", "-keyint_min", "30", "-sc_threshold", "0"], "passthrough"),
    "obs-defaults": (["-g", "250", "-bf", "2"], "rung 480p"),
}


def publisher_cmd(url: str, seconds: int, x264: list[str]) -> list[str]:
    """854x480 at 2.5 Mb/s with the source's x264 settings, AAC."""
    return ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "warning", "-re",
            "-f", "lavfi", "-i", "testsrc2=size=854x480:rate=30", "-f", "lavfi", "-i", "sine=frequency=440",
            "-t", str(seconds), "-c:v", "libx264", "-preset", "veryfast", *x264,
            "-b:v", "2500k", "-maxrate", "2500k", "-bufsize", "2500k",
            "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-f", "flv", url]


@pytest.mark.parametrize("source", SOURCES)
def test_chromium_behind_a_bottleneck_steps_down_to_a_ladder_rung_and_back_up_once_it_lifts(workdir, source):
    x264, own = SOURCES[source]
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("chromium or /usr/bin/chromedriver is not installed")
    gw = Gateway(workdir, ["--segment-target-seconds", "1", "--part-target-ms", "200", "--transcode", "on",
                           "--webrtc-port", str(free_port())]).start()
    webrtc_port = int(gw.cmd[gw.cmd.index("--webrtc-port") + 1])
    pub = Publisher(publisher_cmd(gw.rtmp_url(KEY), WATCH_SECONDS + 40, x264), workdir / "publisher.log")
    viewer = None
    try:
        wait_live(gw, KEY)
        time.sleep(3)  # the 360p rung has published for a few seconds (its rate is measured)
        with BottleneckRelay(webrtc_port, LIMIT_BPS, QUEUE_SECONDS) as relay:
            viewer = subprocess_viewer(gw, relay, workdir)
            lines, ticks_seen, down_at = [], 0, None
            for line in viewer.stdout:
                lines.append(line)
                if not line.startswith('{"tick"'):
                    continue
                ticks_seen += 1
                if down_at is None and "WHEP viewer steps down" in gw.log():
                    down_at = ticks_seen
                # The viewer holds on the rung behind the bottleneck for a while; then the link frees up.
                if down_at is not None and ticks_seen - down_at == LIFT_AFTER_STEP_DOWN_S:
                    relay.lift()
            out, err = viewer.communicate(timeout=120)
        text = "".join(lines) + out
        (workdir / "viewer.log").write_text(text + "\n--- stderr\n" + err)
        log = gw.log()
        done = next((e for e in events(text) if e.get("done")), {})
        ticks = [e["tick"] for e in events(text) if "tick" in e]
        context = (f"relay forwarded={dict(relay.forwarded)} dropped={dict(relay.dropped)}\nticks={ticks}\n"
                   + "\n".join(line for line in log.splitlines() if "WHEP" in line)[-4000:])
        (workdir / "summary.json").write_text(json.dumps({"ticks": ticks, "forwarded": relay.forwarded,
                                                          "dropped": relay.dropped}, indent=1))
        assert done.get("connected") and done.get("source") == own, context
        # NACKs under congestion are answered within a budget: resends did not flood the bottleneck (answering every
        # NACK, the relay dropped ~4 packets for each it forwarded).
        assert relay.dropped["rtp"] < 0.5 * relay.forwarded["rtp"], context
        # The bottleneck bit: Chromium's estimate fell and the gateway moved the viewer onto the 360p rung.
        down = [line for line in log.splitlines() if "WHEP viewer steps down" in line]
        assert down and "to=rung 360p" in down[0] and f"from={own}" in down[0], context
        heights = [t["height"] for t in ticks]
        assert 480 in heights and 360 in heights, context
        first_360 = heights.index(360)
        # Frames kept coming on the rung (Chromium took the new SPS on the same SSRC): ~30 fps for each second there.
        on_rung = [b["frames"] - a["frames"] for a, b in zip(ticks[first_360:], ticks[first_360 + 1:])
                   if b["height"] == 360]
        assert on_rung and min(on_rung) >= 15, context
        # Once the limit lifted, the probe took it back to its own rendition and it stayed there.
        up = [line for line in log.splitlines() if "WHEP viewer steps back up" in line]
        assert up, context
        assert heights[-1] == 480, context
        ended = next(line for line in log.splitlines() if "WHEP session ended" in line and "reason=" in line)
        counts = {k: int(ended.split(f"{k}=")[1].split()[0]) for k in ("steps_down", "steps_up")}
        # Down once for the bottleneck and back up once it lifted (a loaded machine can make Chromium's estimate
        # dip again; it must still end on its own rendition, as the last tick says).
        assert counts["steps_down"] >= 1 and counts["steps_up"] >= 1, ended
    finally:
        if viewer and viewer.poll() is None:
            viewer.kill()
        pub.stop()
        gw.stop()


def subprocess_viewer(gw: Gateway, relay: BottleneckRelay, workdir) -> subprocess.Popen:
    return subprocess.Popen([sys.executable, str(HERE / "whep_chromium.py"), f"http://127.0.0.1:{gw.http_port}", KEY,
                             "--seconds", str(WATCH_SECONDS), "--delete", "--candidate", f"127.0.0.1:{relay.port}",
                             "--shots", str(workdir)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)

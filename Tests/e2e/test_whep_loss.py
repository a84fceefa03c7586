"""WHEP under 2 % loss on the way out: aiortc 1.16 watches through a loopback UDP relay in this test that drops 2 % of
the gateway's SRTP packets (seeded). Playback must go on, the viewer's NACKs must be answered from the stream's
history, and /metrics must show both (sluice_whep_nacked_packets_total, sluice_whep_retransmitted_packets_total;
sluice_whep_rtx_packets_total when the viewer negotiated RTX, as Chromium and aiortc do).

Only SRTP media is dropped: STUN, DTLS and SRTCP pass, so the handshake and the feedback survive on every run and
what is measured is the repair path (NACK → resend from history, PLI → keyframe), not the luck of the seed.
"""
from __future__ import annotations

import os
import random
import sys
import time
from pathlib import Path

import pytest

from procs import FAST_SEGMENTS, Gateway, Publisher, ffmpeg_cmd, free_port
from whip_chromium import CHROMEDRIVER, CHROMIUM
from test_whep import HERE, WATCH_SECONDS, metric, run_client, wait_live
from udp_relay import UDPRelay

KEY = "e2e-whep-loss"
LOSS = 0.02
SEED = 20261126


class OutboundLossRelay(UDPRelay):
    """Between one viewer and the gateway; drops SRTP on the way out."""

    def __init__(self, gateway_port: int, loss: float, seed: int):
        super().__init__(gateway_port)
        self.loss, self.random = loss, random.Random(seed)

    def from_gateway(self, datagram: bytes, kind: str) -> None:
        if kind == "rtp" and self.random.random() < self.loss:
            self.dropped[kind] += 1
            return
        self.forwarded[kind] += 1
        self.send_to_peer(datagram)


def test_playback_survives_two_percent_loss_with_nacks_answered(workdir):
    gw = Gateway(workdir, FAST_SEGMENTS + ["--webrtc-port", str(free_port())]).start()
    webrtc_port = int(gw.cmd[gw.cmd.index("--webrtc-port") + 1])
    pub = Publisher(ffmpeg_cmd(gw.rtmp_url(KEY), 60, bframes=2, size="640x360"), workdir / "publisher.log")
    try:
        wait_live(gw, KEY)
        time.sleep(1)
        with OutboundLossRelay(webrtc_port, LOSS, SEED) as relay:
            done, es = run_client([sys.executable, str(HERE / "whep_aiortc.py"),
                                   f"http://127.0.0.1:{gw.http_port}/whep/{KEY}", "--seconds", str(WATCH_SECONDS),
                                   "--candidate", f"127.0.0.1:{relay.port}"],
                                  workdir / "viewer.log", WATCH_SECONDS + 60)
        context = f"relay forwarded={dict(relay.forwarded)} dropped={dict(relay.dropped)}\n{es}\n{gw.log()[-2500:]}"
        assert done.get("connected") and done["watchedSeconds"] >= 10, context
        sent = relay.forwarded["rtp"] + relay.dropped["rtp"]
        assert sent > 2000 and 0.01 < relay.dropped["rtp"] / sent < 0.03, context
        # Playback went on: most frames of 10+ s at 30 fps decoded, and Opus kept flowing.
        assert done["videoFrames"] >= 10 * 15 and done["audioFrames"] >= 10 * 40, context
        time.sleep(1.5)  # the feed adds a viewer's counters to /metrics once a second
        nacked = metric(gw, "sluice_whep_nacked_packets_total", stream=KEY, kind="video")
        resent = metric(gw, "sluice_whep_retransmitted_packets_total", stream=KEY, kind="video")
        assert nacked > 0 and resent > 0, f"nacked={nacked} resent={resent}\n{context}"
        assert resent <= nacked, context
        (workdir / "summary.txt").write_text(
            f"dropped={dict(relay.dropped)} forwarded={dict(relay.forwarded)} nacked={nacked} resent={resent}\n"
            f"{done}\n")
    finally:
        pub.stop()
        gw.stop()


def test_chromium_repairs_two_percent_loss_with_retransmissions_on_rtx(workdir):
    """Chromium under the same loss: its offer pairs rtx with each H.264 payload type, so the answer keeps RTX and
    retransmissions go out on our RTX SSRC with the original sequence number in front (RFC 4588 §4); Chromium must
    take them as repairs (its retransmittedPacketsReceived) and keep presenting frames."""
    chromium_under_loss(workdir, bframes=2, gop=None, source="webrtc-rung")


def test_chromium_repairs_loss_across_the_join_from_the_rung_onto_the_passthrough(workdir):
    """The same loss on an RTMP passthrough (no B-frames, 2 s GOP): the viewer joins on the WebRTC rung and moves
    onto the passthrough, so its NACKs name its own sequence numbers, answered from what it was sent (the rung's
    packets from its own history, the passthrough's mapped back): the repairs still land."""
    log = chromium_under_loss(workdir, bframes=0, gop=60, source="passthrough")
    assert "WHEP viewer left the rung" in log and "on_own_feed=true" in log, log[-2500:]


def chromium_under_loss(workdir, *, bframes: int, gop, source: str) -> str:
    """Chromium watches KEY through the 2 % loss relay; asserts playback and RTX repairs; returns the gateway log."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("chromium or /usr/bin/chromedriver is not installed")
    gw = Gateway(workdir, FAST_SEGMENTS + ["--webrtc-port", str(free_port())]).start()
    webrtc_port = int(gw.cmd[gw.cmd.index("--webrtc-port") + 1])
    pub = Publisher(ffmpeg_cmd(gw.rtmp_url(KEY), 60, bframes=bframes, size="640x360", gop=gop),
                    workdir / "publisher.log")
    try:
        wait_live(gw, KEY)
        time.sleep(1)
        with OutboundLossRelay(webrtc_port, LOSS, SEED) as relay:
            done, es = run_client([sys.executable, str(HERE / "whep_chromium.py"), f"http://127.0.0.1:{gw.http_port}",
                                   KEY, "--seconds", str(WATCH_SECONDS), "--shots", str(workdir),
                                   "--candidate", f"127.0.0.1:{relay.port}"],
                                  workdir / "chromium.log", WATCH_SECONDS + 90)
        context = f"relay forwarded={dict(relay.forwarded)} dropped={dict(relay.dropped)}\n{done}\n{gw.log()[-2500:]}"
        assert done.get("connected") and done["watchedSeconds"] >= 10, context
        assert done.get("source") == source, context
        assert relay.dropped["rtp"] > 20, context
        assert done["frames"] >= 10 * 15, context
        video = done["stats"]["video"]
        # Chromium asked for what it missed, and (almost) everything came back on the RTX stream: with RTX its
        # media SSRC still counts those packets lost, and retransmittedPacketsReceived counts the repairs.
        assert video["nackCount"] > 0 and video.get("rtxSsrc"), context
        assert video.get("retransmittedPacketsReceived", 0) >= 0.8 * video["packetsLost"] > 0, context
        time.sleep(1.5)
        resent = metric(gw, "sluice_whep_retransmitted_packets_total", stream=KEY, kind="video")
        on_rtx = metric(gw, "sluice_whep_rtx_packets_total", stream=KEY, kind="video")
        assert resent > 0 and on_rtx == resent, f"resent={resent} on_rtx={on_rtx}\n{context}"
        (workdir / "chromium-summary.txt").write_text(
            f"dropped={dict(relay.dropped)} resent={resent} on_rtx={on_rtx} video={video}\n")
        return gw.log()
    finally:
        pub.stop()
        gw.stop()

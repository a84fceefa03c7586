"""WHIP under 2 % packet loss: aiortc 1.16 publishes through a loopback UDP relay in this test that drops packets on
the way in; the stream recovers through NACK (aiortc answers with RTX) and PLI, and /metrics shows it.

What the relay drops, publisher -> gateway only: 2 % of every datagram, seeded (STUN checks, DTLS records, SRTP and
SRTCP alike, as a lossy link would), plus, always, the publisher's first STUN Binding request and its first DTLS
record (the ClientHello: aiortc is the DTLS client against our a=setup:passive). The handshake therefore survives loss
on every run through ICE check retransmission and the DTLS client's retransmission timer, not by luck of the seed.
Gateway -> publisher is forwarded untouched, so every NACK and PLI reaches aiortc: what is measured is our receive
side (gap detection, NACK, reorder wait, PLI), not aiortc's loss of feedback.
"""
from __future__ import annotations

import json
import random
import re
import subprocess
import sys
import time
import urllib.request
from collections import Counter
from pathlib import Path

import pytest
import requests

from e2ecommon import assert_media_valid, assert_playlists_valid, assert_stream_followed
from procs import ARTIFACTS, FAST_SEGMENTS, SLUICE, free_port
from session import live_run
from udp_relay import UDPRelay

KEY = "e2e-whip-loss"
PUBLISHER = Path(__file__).with_name("whip_aiortc.py")
LOSS = 0.02
SEED = 20260522
PUBLISH_SECONDS = 18


class LossyRelay(UDPRelay):
    """Between one publisher and the gateway; drops on the way in only."""

    def __init__(self, gateway_port: int, loss: float, seed: int):
        super().__init__(gateway_port)
        self.loss = loss
        self.random = random.Random(seed)
        self.returned = Counter()
        self.forced = set()

    def _drop(self, kind: str, datagram: bytes) -> bool:
        # The first Binding request (type 0x0001) and the first DTLS record of the publisher, always.
        first = (kind == "stun" and datagram[:2] == b"\x00\x01") or kind == "dtls"
        if first and kind not in self.forced:
            self.forced.add(kind)
            return True
        return self.random.random() < self.loss

    def from_gateway(self, datagram: bytes, kind: str) -> None:
        self.returned[kind] += 1
        self.send_to_peer(datagram)

    def from_peer(self, datagram: bytes, kind: str) -> None:
        if self._drop(kind, datagram):
            self.dropped[kind] += 1
            return
        self.forwarded[kind] += 1
        self.send_to_gateway(datagram)

    def summary(self) -> dict:
        return {"forwarded": dict(self.forwarded), "dropped": dict(self.dropped), "returned": dict(self.returned)}


def scrape(url: str) -> dict[tuple[str, str], float]:
    """`name{labels}` -> value for every sluice_webrtc_* sample of our stream, keyed by (name, kind)."""
    with urllib.request.urlopen(url, timeout=5) as r:
        text = r.read().decode()
    out = {}
    for m in re.finditer(r'^(sluice_webrtc_\w+)\{([^}]*)\} (\S+)$', text, re.M):
        labels = dict(re.findall(r'(\w+)="([^"]*)"', m.group(2)))
        if labels.get("stream") == KEY:
            out[(m.group(1), labels.get("kind", ""))] = float(m.group(3))
    return out


@pytest.fixture(scope="module")
def run():
    webrtc_port = free_port()
    args = FAST_SEGMENTS + ["--webrtc-port", str(webrtc_port), "--transcode", "off"]
    workdir = ARTIFACTS / "whip_loss"
    metrics: dict = {}
    with LossyRelay(webrtc_port, LOSS, SEED) as relay:
        def publisher(gw):
            return [sys.executable, str(PUBLISHER), f"http://127.0.0.1:{gw.http_port}/whip/{KEY}",
                    "--seconds", str(PUBLISH_SECONDS), "--candidate", f"127.0.0.1:{relay.port}"]

        def during(gw, pubs):
            # Counters outlive the session: read them once the publisher has sent DELETE and exited.
            pubs[0].wait(PUBLISH_SECONDS + 30)
            metrics["live"] = scrape(f"http://127.0.0.1:{gw.http_port}/metrics")
            metrics["api"] = requests.get(f"http://127.0.0.1:{gw.http_port}/api/streams", timeout=5).json()
            metrics["stats"] = subprocess.run([str(SLUICE), "stats", f"http://127.0.0.1:{gw.http_port}", "--once"],
                                              capture_output=True, text=True, timeout=30).stdout

        # The follower stops well before the publisher's DELETE: the end of a stream is not what is tested here.
        result = live_run(workdir, KEY, publisher, follow_seconds=PUBLISH_SECONDS - 6, gateway_args=args,
                          during=during, publisher_grace=30)
        result.notes.append(json.dumps(relay.summary()))
    (workdir / "relay.json").write_text(json.dumps(relay.summary(), indent=1))
    (workdir / "metrics.json").write_text(json.dumps({f"{k[0]}{{kind={k[1]}}}": v for k, v in metrics.get("live", {}).items()}, indent=1))
    result.metrics = metrics.get("live", {})
    result.api = metrics.get("api", [])
    result.stats = metrics.get("stats", "")
    result.relay = relay
    return result


def test_relay_dropped_about_two_percent_of_the_publishers_packets_including_the_handshake(run):
    relay = run.relay
    media = relay.forwarded["rtp"] + relay.dropped["rtp"]
    assert media > 1500, f"too little media through the relay: {relay.summary()}\n{run.context()}"
    rate = relay.dropped["rtp"] / media
    assert 0.01 < rate < 0.035, f"RTP drop rate {rate:.3%}: {relay.summary()}"
    assert relay.dropped["stun"] >= 1 and relay.dropped["dtls"] >= 1, relay.summary()
    print("relay:", relay.summary())


def test_session_connected_despite_the_dropped_handshake_packets(run):
    text = (ARTIFACTS / "whip_loss" / "publisher.log").read_text(errors="replace")
    events = [json.loads(line) for line in text.splitlines() if line.startswith("{")]
    done = next((e for e in events if e.get("done")), None)
    assert done and done["state"] == "connected", f"{events}\n{run.context()}"
    assert {"deleted": 200} in events, events
    assert "WHIP DTLS connected" in run.gateway.log()


def test_metrics_show_the_loss_the_nacks_and_the_repairs(run):
    m, relay = run.metrics, run.relay
    got = lambda name, kind="video": m.get((name, kind), 0)  # noqa: E731
    print(json.dumps({f"{k[0]}[{k[1]}]": v for k, v in sorted(m.items())}, indent=1))
    assert m, f"no sluice_webrtc_* series for {KEY}\n{run.context()}"
    received = got("sluice_webrtc_packets_received_total")
    # Every video packet the relay let through arrived (loopback); RTX repairs are counted apart.
    assert received > 1000, m
    lost = got("sluice_webrtc_packets_lost_total")
    assert lost > 0, m
    assert got("sluice_webrtc_packets_lost_total", "audio") > 0, m
    assert got("sluice_webrtc_nacks_sent_total") > 0 and got("sluice_webrtc_nacked_packets_total") >= lost, m
    repaired = got("sluice_webrtc_retransmissions_received_total")
    assert repaired > 0 or got("sluice_webrtc_plis_sent_total") > 1, m
    # Gaps seen can exceed the relay's RTP drops only by dropped RTX repairs being re-asked, never by much.
    dropped_rtp = relay.dropped["rtp"]
    assert lost <= dropped_rtp, (m, relay.summary())
    # aiortc keeps 128 packets of history and answers NACKs with RTX: most gaps are repaired, not given up.
    unrecovered = got("sluice_webrtc_packets_unrecovered_total")
    assert repaired >= lost / 2 and unrecovered <= lost / 2, m
    assert got("sluice_webrtc_sessions", "") == 0, m


def test_stream_kept_going_with_no_long_stall(run):
    assert_stream_followed(run)
    for name, rf in run.follow.renditions.items():
        waits = [b.elapsed for b in rf.blocking if b.status == 200]
        assert waits and max(waits) < 2.0, f"{name}: a blocking reload waited {max(waits or [0]):.2f} s\n{run.context()}"
        # The origin answers 503 when the awaited part does not come within its blocking timeout: a stall.
        failed = [b for b in rf.blocking if b.status != 200]
        assert not failed, f"{name}: {len(failed)} blocking reloads were not answered with the part\n{run.context()}"


def test_every_playlist_response_validates(run):
    assert_playlists_valid(run)


def test_media_decodes(run):
    assert_media_valid(run)
    video = run.analysis.summaries["video"]
    assert (video.width, video.height) == (640, 360)


def test_api_streams_carries_the_same_webrtc_counts(run):
    """`sluice stats` reads /api/streams: the stream's webrtc block agrees with the Prometheus counters."""
    stream = next((s for s in run.api if s["key"] == KEY), None)
    assert stream and stream.get("webrtc"), f"no webrtc block for {KEY}: {run.api}"
    text = json.dumps(stream["webrtc"])
    print("api webrtc:", text)
    received = run.metrics.get(("sluice_webrtc_packets_received_total", "video"), 0)
    assert str(int(received)) in text, (received, text)
    # The one-screen report shows the same counters on the stream's webrtc line.
    print(run.stats)
    line = next((l for l in run.stats.splitlines() if l.strip().startswith("webrtc:")), "")
    assert f"video rx {int(received)} " in line and "0 session(s)" in line, run.stats

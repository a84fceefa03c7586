"""Publisher loss and gateway shutdown: the playlist stays live within the reconnect grace,
blocking requests do not hang, and SIGTERM exits 0 promptly after ending the playlists."""
from __future__ import annotations

import re
import signal
import socket
import threading
import time
from urllib.parse import urljoin

import pytest
import requests

import hlsvalidate as hv
from follower import wait_for_multivariant
from procs import FAST_SEGMENTS, Gateway, ffmpeg_cmd

KEY = "e2e-shutdown"


@pytest.fixture
def gateway(workdir):
    """Slate off: after the publisher's loss nothing new is published, so a blocking request waits for the end."""
    gw = Gateway(workdir, FAST_SEGMENTS, env={"SLUICE_INGEST_SLATE": "false"})
    yield gw.start()
    gw.stop()


def test_publisher_loss_then_sigterm(gateway, publishers):
    pub = publishers(ffmpeg_cmd(gateway.rtmp_url(KEY), 60))
    r = wait_for_multivariant(gateway.hls_url(KEY), 15)
    assert r is not None, gateway.log()[-2000:]
    mv = hv.parse_multivariant(r.text, gateway.hls_url(KEY))
    media = urljoin(gateway.hls_url(KEY), mv.variants[0][1])
    time.sleep(3)

    # The publisher goes away: within the grace the playlist stays live (no ENDLIST).
    pub.stop(signal.SIGKILL)
    time.sleep(1.0)
    live = requests.get(media, timeout=5)
    assert live.status_code == 200
    pl = hv.parse_media_playlist(live.text, media)
    assert not pl.endlist, "playlist ended 1 s after the publisher dropped (no reconnect grace)"
    td = pl.target_duration or 1

    # B6: a blocking request for a part that will not come answers (503, or a playlist) within ~3 x TD.
    t0 = time.monotonic()
    waited = requests.get(f"{media}?_HLS_msn={pl.next_msn}&_HLS_part={len(pl.trailing_parts)}",
                          timeout=3 * td + 10)
    elapsed = time.monotonic() - t0
    print(f"blocking request with no publisher: {waited.status_code} after {elapsed:.2f} s")
    assert elapsed <= 3 * td + 1.5, f"blocking request held {elapsed:.2f} s (> 3 x TD)"
    if waited.status_code == 200:
        got = hv.parse_media_playlist(waited.text, media)
        assert got.endlist or got.last_position() >= (pl.next_msn, len(pl.trailing_parts)), \
            "200 without the requested part and without ENDLIST"
    else:
        assert waited.status_code == 503, f"want 503 (or a playlist), got {waited.status_code}"

    # A request pending at shutdown; then SIGTERM.
    pending = {}

    def hold():
        try:
            resp = requests.get(f"{media}?_HLS_msn={pl.next_msn + 1}", timeout=15)
            pending["status"], pending["body"] = resp.status_code, resp.text
        except requests.RequestException as e:
            pending["error"] = repr(e)

    t = threading.Thread(target=hold, daemon=True)
    t.start()
    time.sleep(0.3)
    log_before = len(gateway.log())
    code = gateway.stop(signal.SIGTERM, timeout=10)
    t.join(5)
    print(f"SIGTERM: exit {code} after {gateway.stop_seconds:.2f} s; pending request: "
          f"{ {k: (v[:200] if isinstance(v, str) else v) for k, v in pending.items()} }")
    assert code == 0, f"exit code {code} (None = still running after 10 s)\n{gateway.log()[-2000:]}"
    tail = gateway.log()[log_before:]
    assert re.search(r"(?i)endlist|ended|end(ing)? (the )?(stream|playlist)", tail), \
        f"shutdown log does not say the playlists were ended:\n{tail[-1500:]}"
    if pending.get("status") == 200:
        assert "#EXT-X-ENDLIST" in pending["body"], "request released at shutdown without ENDLIST"


@pytest.mark.parametrize("http2", ["true", "false"])
def test_sigterm_closes_idle_and_silent_connections(workdir, http2):
    """Keep-alive connections after a response and connections that never sent a byte must not hold SIGTERM."""
    gw = Gateway(workdir, FAST_SEGMENTS, env={"SLUICE_HTTP_HTTP2": http2}).start()
    try:
        kept = socket.create_connection(("127.0.0.1", gw.http_port))
        kept.sendall(b"GET /healthz HTTP/1.1\r\nHost: sluice\r\n\r\n")
        assert kept.recv(64).startswith(b"HTTP/1.1 200")
        silent = socket.create_connection(("127.0.0.1", gw.http_port))
        time.sleep(0.3)
        code = gw.stop(signal.SIGTERM, timeout=8)
        print(f"http2={http2}: exit {code} after {gw.stop_seconds:.2f} s")
        assert code == 0, f"SIGTERM with idle connections open: exit {code} (None = still running after 8 s)"
        for s in (kept, silent):
            s.settimeout(2)
            while s.recv(4096):  # the rest of the /healthz response, then EOF (a timeout fails the test)
                pass
    finally:
        gw.stop()

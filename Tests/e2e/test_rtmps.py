"""RTMPS ingest (issue 7): FFmpeg publishes to rtmps:// with a self-signed certificate made here by the openssl
CLI; the stream plays over the origin; plain RTMP keeps working on its own port; a plain-RTMP client on the
TLS port is closed without harming the gateway."""
from __future__ import annotations

import socket
import subprocess

import requests

from procs import FAST_SEGMENTS, Gateway, ffmpeg_cmd, free_port
from waiting import eventually


def make_certificate(workdir) -> tuple[str, str]:
    cert, key = workdir / "cert.pem", workdir / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-keyout", str(key), "-out", str(cert)], check=True, capture_output=True)
    return str(cert), str(key)


def wait_live(gw: Gateway, key: str, timeout: float = 20) -> bool:
    return eventually(lambda: requests.get(gw.hls_url(key), timeout=5).status_code == 200, timeout, period=0.3)


def test_ffmpeg_publishes_over_rtmps_with_a_self_signed_certificate(workdir, publishers):
    out = subprocess.run(["ffmpeg", "-hide_banner", "-protocols"], capture_output=True, text=True).stdout
    assert "rtmps" in out.split(), "this ffmpeg has no rtmps protocol"
    cert, key = make_certificate(workdir)
    tls_port = free_port()
    cfg = workdir / "rtmps.yaml"
    cfg.write_text(f"transcode:\n  enabled: false\nrtmp:\n  tls:\n    port: {tls_port}\n    cert: {cert}\n    key: {key}\n")
    gw = Gateway(workdir, FAST_SEGMENTS, config=cfg).start()
    try:
        assert "RTMPS ingest listening" in gw.log(), gw.log()[-2000:]
        # A plain RTMP handshake on the TLS port is not TLS: that connection closes, nothing else does.
        with socket.create_connection(("127.0.0.1", tls_port), timeout=5) as s:
            s.sendall(b"\x03" + b"\x00" * 1536)
            s.settimeout(5)
            try:
                while s.recv(4096):
                    pass
            except (ConnectionResetError, socket.timeout):
                pass
        url = f"rtmps://127.0.0.1:{tls_port}/live/secure"
        pub = publishers(ffmpeg_cmd(url, 30, size="320x240"), "rtmps")
        assert wait_live(gw, "secure"), f"{pub.log()[-2000:]}\n{gw.log()[-2000:]}"
        assert "origin=rtmps://" in gw.log() or "rtmps" in gw.log()
        # Plain RTMP still works beside it.
        publishers(ffmpeg_cmd(gw.rtmp_url("plain"), 30, size="320x240"), "plain")
        assert wait_live(gw, "plain"), gw.log()[-2000:]
    finally:
        gw.stop()

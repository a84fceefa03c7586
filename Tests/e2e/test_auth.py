"""Publish auth with the real ffmpeg CLI (issue 7): listed keys, HMAC-signed keys with expiry, a webhook on a
tiny local HTTP server (allow, deny, timeout), and the start-up line of the open default."""
from __future__ import annotations

import hashlib
import hmac
import http.server
import json
import re
import threading
import time

import pytest
import requests

from follower import wait_for_multivariant
from procs import FAST_SEGMENTS, Gateway, ffmpeg_cmd
from waiting import eventually

SECRET = "e2e-secret"


def signed(name: str, exp: int, secret: str = SECRET) -> str:
    sig = hmac.new(secret.encode(), f"{name}:{exp}".encode(), hashlib.sha256).hexdigest()
    return f"{name}?exp={exp}&sig={sig}"


def start_gateway(workdir, yaml: str) -> Gateway:
    cfg = workdir / "auth.yaml"
    # A refused key never goes live: its playlist answers 404 at once instead of waiting for a publisher (fast start).
    cfg.write_text("transcode:\n  enabled: false\nhls:\n  start_wait_s: 0\n" + yaml)
    return Gateway(workdir, FAST_SEGMENTS, config=cfg).start()


def publish_outcome(gw: Gateway, publishers, name: str, label: str, seconds: float = 20):
    """Publishes as `name`; returns ('live', None) once a playlist appears, or ('refused', ffmpeg output)."""
    key = name.split("?")[0]
    pub = publishers(ffmpeg_cmd(gw.rtmp_url(name), seconds, size="320x240"), label)

    def outcome():
        if pub.proc.poll() is not None:
            return "refused"
        return "live" if requests.get(gw.hls_url(key), timeout=5).status_code == 200 else None

    seen = eventually(outcome, 15, period=0.2)
    if seen == "refused":
        return "refused", pub.log()
    pub.stop()
    return ("live", None) if seen == "live" else ("timeout", pub.log())


def refusal_line(gw: Gateway, key: str) -> str:
    lines = [l for l in gw.log().splitlines() if "RTMP publish refused" in l and re.search(rf"stream={re.escape(key)}\b", l)]
    assert lines, f"no refusal logged for {key}:\n{gw.log()[-2000:]}"
    assert "peer=127.0.0.1:" in lines[-1], lines[-1]
    return lines[-1]


def test_listed_and_signed_keys_publish_and_others_get_a_clean_rtmp_error(workdir, publishers):
    gw = start_gateway(workdir, f"auth:\n  publish:\n    keys: ['cam?s3cret']\n    hmac_secret: {SECRET}\n")
    try:
        auth = next(ln for ln in gw.log().splitlines() if ln.endswith("RTMP publish auth"))
        assert "methods=1 configured key(s), HMAC-signed keys " in auth and "anonymous=no anonymous publishing " in auth

        state, out = publish_outcome(gw, publishers, "cam?wrong", "wrong")
        assert state == "refused", out
        # ffmpeg reports the server's onStatus error and exits non-zero, instead of hanging or crashing.
        assert "publish refused" in out, out
        assert "not in the key list" in refusal_line(gw, "cam")

        assert publish_outcome(gw, publishers, "cam?s3cret", "listed")[0] == "live"

        now = int(time.time())
        state, out = publish_outcome(gw, publishers, signed("cam2", now - 5), "expired")
        assert state == "refused", out
        assert "signed key: expired at" in refusal_line(gw, "cam2")

        state, out = publish_outcome(gw, publishers, signed("cam3", now + 600, "not-the-secret"), "forged")
        assert state == "refused", out
        assert "bad signature" in refusal_line(gw, "cam3")

        assert publish_outcome(gw, publishers, signed("cam4", now + 600), "signed")[0] == "live"
        # The signature is not part of the stream's name: viewers use the bare key.
        assert requests.get(gw.hls_url("cam4"), timeout=5).status_code == 200
    finally:
        gw.stop()


class Webhook(http.server.BaseHTTPRequestHandler):
    calls: list[dict] = []

    def do_POST(self):  # noqa: N802 (http.server's naming)
        body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
        Webhook.calls.append(body)
        if body["key"] == "slow":
            time.sleep(3)
        status = 204 if body["key"] in ("allowed", "slow") else 403
        self.send_response(status)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args):
        pass


def test_webhook_allows_denies_and_times_out(workdir, publishers):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Webhook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/publish"
    gw = start_gateway(workdir, f"auth:\n  publish:\n    webhook_url: {url}\n    webhook_timeout_ms: 800\n")
    try:
        assert publish_outcome(gw, publishers, "allowed?t=1", "allowed")[0] == "live"
        assert {"key": "allowed", "name": "allowed?t=1", "peer": "127.0.0.1", "protocol": "rtmp"} in Webhook.calls

        state, out = publish_outcome(gw, publishers, "denied", "denied")
        assert state == "refused", out
        assert "webhook answered 403" in refusal_line(gw, "denied")

        t0 = time.monotonic()
        state, out = publish_outcome(gw, publishers, "slow", "slow")
        assert state == "refused", out
        assert "webhook timed out" in refusal_line(gw, "slow")
        assert time.monotonic() - t0 < 3, "the refusal waited for the webhook instead of its timeout"
        # The gateway is still serving after all three.
        assert requests.get(f"http://127.0.0.1:{gw.http_port}/healthz", timeout=5).status_code == 200
    finally:
        gw.stop()
        server.shutdown()


def test_default_config_accepts_any_key_on_loopback_and_says_so(gateway, publishers):
    assert "ANY stream key accepted from loopback peers" in gateway.log()
    assert publish_outcome(gateway, publishers, "any-key-at-all", "open")[0] == "live"

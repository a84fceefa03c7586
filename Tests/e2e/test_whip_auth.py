"""WHIP bearer-token auth under the RTMP publish rules (docs/AUTH.md): `POST /whip/{key}` with
`Authorization: Bearer TOKEN` is judged as the RTMP name `key?TOKEN`. Plain offer POSTs (an aiortc H.264 + Opus
offer, never connected) check the statuses and the challenge; a webhook sees `"protocol": "whip"`; the `/publish`
page in headless Chromium shows the server's refusal and then publishes with the right token.
"""
from __future__ import annotations

import asyncio
import hashlib
import hmac
import http.server
import os
import threading
import time

import pytest
import requests

from procs import ARTIFACTS, FAST_SEGMENTS, Gateway
from test_auth import Webhook
from whip_chromium import CHROMEDRIVER, CHROMIUM, FLAGS

SECRET = "e2e-whip-secret"


def signed_token(key: str, exp: int, secret: str = SECRET) -> str:
    sig = hmac.new(secret.encode(), f"{key}:{exp}".encode(), hashlib.sha256).hexdigest()
    return f"exp={exp}&sig={sig}"


@pytest.fixture(scope="module")
def offer() -> str:
    """An H.264 + Opus offer from aiortc 1.16, as a browser or OBS would POST it."""
    aiortc = pytest.importorskip("aiortc")
    import aioice.ice
    from aiortc.mediastreams import AudioStreamTrack, VideoStreamTrack
    # aioice never gathers 127.0.0.1; tests may only use loopback, so make it the one host address.
    aioice.ice.get_host_addresses = lambda use_ipv4, use_ipv6: ["127.0.0.1"] if use_ipv4 else []

    async def make() -> str:
        pc = aiortc.RTCPeerConnection(aiortc.RTCConfiguration(iceServers=[]))
        for track, mime in ((VideoStreamTrack(), "video/H264"), (AudioStreamTrack(), "audio/opus")):
            t = pc.addTransceiver(track, direction="sendonly")
            t.setCodecPreferences([c for c in aiortc.RTCRtpSender.getCapabilities(track.kind).codecs if c.mimeType == mime])
        await pc.setLocalDescription(await pc.createOffer())
        sdp = pc.localDescription.sdp
        await pc.close()
        return sdp

    return asyncio.run(make())


def start_gateway(workdir, yaml: str) -> Gateway:
    cfg = workdir / "auth.yaml"
    cfg.write_text("transcode:\n  enabled: false\n" + yaml)
    return Gateway(workdir, FAST_SEGMENTS, config=cfg).start()


def post(gw: Gateway, key: str, offer: str, token: str | None = None, scheme: str = "Bearer") -> requests.Response:
    headers = {"Content-Type": "application/sdp"}
    if token is not None:
        headers["Authorization"] = f"{scheme} {token}"
    return requests.post(f"http://127.0.0.1:{gw.http_port}/whip/{key}", data=offer, headers=headers, timeout=10)


def created_then_deleted(gw: Gateway, r: requests.Response, key: str) -> None:
    assert r.status_code == 201, f"{r.status_code} {r.text}\n{gw.log()[-2000:]}"
    assert r.headers["Location"].startswith(f"/whip/{key}/") and r.text.startswith("v=0")
    d = requests.delete(f"http://127.0.0.1:{gw.http_port}{r.headers['Location']}", timeout=10)
    assert d.status_code == 200, d.text


def refusal_line(gw: Gateway, key: str) -> str:
    lines = [l for l in gw.log().splitlines() if "WHIP publish refused" in l and f"stream={key} " in l + " "]
    assert lines, f"no WHIP refusal logged for {key}:\n{gw.log()[-2000:]}"
    assert "peer=127.0.0.1" in lines[-1], lines[-1]
    return lines[-1]


def test_bearer_token_follows_the_key_list_and_signed_keys(workdir, offer):
    gw = start_gateway(workdir, f"auth:\n  publish:\n    keys: ['cam?s3cret']\n    hmac_secret: {SECRET}\n")
    try:
        r = post(gw, "cam", offer)
        assert r.status_code == 401, r.text
        assert r.headers["WWW-Authenticate"] == 'Bearer realm="sluice"'
        assert r.text.startswith("publish refused: ") and "not in the key list" in r.text, r.text
        assert "WWW-Authenticate" in r.headers["Access-Control-Expose-Headers"]

        r = post(gw, "cam", offer, "wrong")
        assert r.status_code == 401 and 'error="invalid_token"' in r.headers["WWW-Authenticate"], r.headers
        assert "not in the key list" in refusal_line(gw, "cam")

        r = post(gw, "cam", offer, "s3cret", scheme="Basic")
        assert r.status_code == 401 and "Bearer <token>" in r.text, r.text

        created_then_deleted(gw, post(gw, "cam", offer, "s3cret"), "cam")
        assert "auth=key list" in gw.log() and "WHIP publish authorized" in gw.log()

        now = int(time.time())
        r = post(gw, "cam2", offer, signed_token("cam2", now - 5))
        assert r.status_code == 401 and "expired" in r.text, r.text
        r = post(gw, "cam3", offer, signed_token("cam3", now + 600, "not-the-secret"))
        assert r.status_code == 401 and "bad signature" in r.text, r.text
        # A token signed for another key does not open this one.
        r = post(gw, "cam4", offer, signed_token("cam3", now + 600))
        assert r.status_code == 401, r.text
        created_then_deleted(gw, post(gw, "cam4", offer, signed_token("cam4", now + 600)), "cam4")
    finally:
        gw.stop()


def test_preflight_lets_a_browser_send_the_token(workdir):
    gw = start_gateway(workdir, "")
    try:
        r = requests.options(f"http://127.0.0.1:{gw.http_port}/whip/cam", timeout=5, headers={
            "Origin": "http://elsewhere.example", "Access-Control-Request-Method": "POST",
            "Access-Control-Request-Headers": "authorization,content-type"})
        assert r.status_code == 204
        allowed = [h.strip().lower() for h in r.headers["Access-Control-Allow-Headers"].split(",")]
        assert {"authorization", "content-type"} <= set(allowed), r.headers
        exposed = r.headers["Access-Control-Expose-Headers"]
        assert all(h in exposed for h in ("Location", "ETag", "Link")), exposed
        assert "POST" in r.headers["Access-Control-Allow-Methods"] and r.headers["Access-Control-Allow-Origin"] == "*"
    finally:
        gw.stop()


def test_anonymous_none_refuses_loopback_and_webhook_sees_whip(workdir, offer):
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Webhook)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    url = f"http://127.0.0.1:{server.server_address[1]}/publish"
    gw = start_gateway(workdir, f"auth:\n  publish:\n    webhook_url: {url}\n    anonymous: none\n")
    try:
        created_then_deleted(gw, post(gw, "allowed", offer, "t=1"), "allowed")
        assert {"key": "allowed", "name": "allowed?t=1", "peer": "127.0.0.1", "protocol": "whip"} in Webhook.calls
        r = post(gw, "denied", offer)
        assert r.status_code == 401 and "webhook answered 403" in r.text, r.text
        assert r.headers["WWW-Authenticate"] == 'Bearer realm="sluice"'
    finally:
        gw.stop()
        server.shutdown()


def test_publish_page_shows_the_refusal_then_publishes_with_the_token(workdir):
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("chromium or /usr/bin/chromedriver is not installed")
    gw = start_gateway(workdir, "auth:\n  publish:\n    keys: ['cam?s3cret']\n")
    os.environ["SE_AVOID_STATS"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in FLAGS:
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER, log_output=str(workdir / "chromedriver.log")), options=opts)
    state_js = "const p = window.sluicePublisher; return {state: p.state, error: p.error, post: p.postStatus," \
               " connection: p.connection, shown: document.getElementById('error').textContent," \
               " hidden: document.getElementById('error').hidden};"

    def wait(ok, timeout: float) -> dict:
        end = time.monotonic() + timeout
        while True:
            s = driver.execute_script(state_js)
            if ok(s) or time.monotonic() > end:
                return s
            time.sleep(0.2)

    try:
        driver.get(f"http://127.0.0.1:{gw.http_port}/publish?key=cam")
        driver.find_element(By.ID, "token").send_keys("wrong")
        driver.find_element(By.ID, "start").click()
        s = wait(lambda s: s["error"], 15)
        driver.save_screenshot(str(ARTIFACTS / "whip-auth-refused.png"))
        assert s["post"] == 401 and not s["hidden"], s
        assert "HTTP 401" in s["shown"] and "publish refused: not in the key list" in s["shown"], s
        assert 'error="invalid_token"' in s["shown"], s

        token = driver.find_element(By.ID, "token")
        token.clear()
        token.send_keys("s3cret")
        driver.find_element(By.ID, "start").click()
        s = wait(lambda s: s["connection"] == "connected" or (s["error"] and s["post"] != 401), 20)
        driver.save_screenshot(str(ARTIFACTS / "whip-auth-connected.png"))
        assert s["post"] == 201 and s["connection"] == "connected" and s["hidden"], f"{s}\n{gw.log()[-2000:]}"
        driver.find_element(By.ID, "stop").click()
        s = wait(lambda s: s["state"] == "stopped" and driver.execute_script("return window.sluicePublisher.deleteStatus"), 10)
        assert driver.execute_script("return window.sluicePublisher.deleteStatus") == 200, s
    finally:
        driver.quit()
        gw.stop()


def test_offer_over_webrtc_max_offer_bytes_gets_413_and_a_real_offer_fits(workdir, offer):
    """Issue 7 limit: the SDP size is configurable (webrtc.max_offer_bytes); over it the POST is 413 with the key named."""
    gw = Gateway(workdir, FAST_SEGMENTS + ["--transcode", "off"],
                 env={"SLUICE_WEBRTC_MAX_OFFER_BYTES": str(len(offer.encode()) + 16)}).start()
    try:
        url = f"http://127.0.0.1:{gw.http_port}/whip/limit"
        big = offer + "a=x-padding:" + "p" * 4096 + "\r\n"
        r = requests.post(url, data=big, headers={"Content-Type": "application/sdp"}, timeout=10)
        assert r.status_code == 413 and "webrtc.max_offer_bytes" in r.text, (r.status_code, r.text)
        r = requests.post(url, data=offer, headers={"Content-Type": "application/sdp"}, timeout=10)
        assert r.status_code == 201, (r.status_code, r.text)
        requests.delete(f"http://127.0.0.1:{gw.http_port}{r.headers['Location']}", timeout=10)
    finally:
        gw.stop()

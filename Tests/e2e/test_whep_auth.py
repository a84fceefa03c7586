"""WHEP viewers follow HLS playback's rule (auth.view.hmac_secret): the POST needs `Authorization: Bearer <viewer
token>` for its key, the same token `/t/{token}/live/...` takes; and whep.max_viewers answers 503 + Retry-After."""
from __future__ import annotations

import hashlib
import hmac
import sys
import time

from procs import FAST_SEGMENTS, Gateway, Publisher, ffmpeg_cmd
from test_whep import HERE, request, run_client, wait_live

SECRET = "whep-viewer-secret"
KEY = "e2e-whep-auth"


def viewer_token(key: str, seconds: int = 600) -> str:
    expiry = int(time.time()) + seconds
    return f"{expiry}-{hmac.new(SECRET.encode(), f'{key}:{expiry}'.encode(), hashlib.sha256).hexdigest()}"


def test_viewer_token_and_viewer_limit(workdir):
    cfg = workdir / "whep-auth.yaml"
    cfg.write_text(f"transcode:\n  enabled: false\nauth:\n  view:\n    hmac_secret: {SECRET}\n"
                   "whep:\n  max_viewers: 1\n  retry_after_s: 7\n")
    gw = Gateway(workdir, FAST_SEGMENTS, config=cfg).start()
    pub = Publisher(ffmpeg_cmd(gw.rtmp_url(KEY), 60, size="320x240"), workdir / "publisher.log")
    try:
        wait_live(gw, KEY)
        url = f"http://127.0.0.1:{gw.http_port}/whep/{KEY}"
        offer = (HERE / "whep_offer_aiortc.sdp").read_bytes()
        sdp = {"Content-Type": "application/sdp"}
        status, headers, body = request("POST", url, offer, sdp)
        assert status == 401 and headers.get("WWW-Authenticate", "").startswith("Bearer"), (status, body)
        status, _, body = request("POST", url, offer, {**sdp, "Authorization": f"Bearer {viewer_token('other')}"})
        assert status == 401 and "refused" in body, (status, body)
        good = {**sdp, "Authorization": f"Bearer {viewer_token(KEY)}"}
        status, headers, _ = request("POST", url, offer, good)
        assert status == 201, status
        first = headers["Location"]
        status, headers, body = request("POST", url, offer, good)
        assert status == 503 and headers.get("Retry-After") == "7", (status, headers, body)
        assert request("DELETE", f"http://127.0.0.1:{gw.http_port}{first}")[0] == 200
        # The slot frees once the session has closed: a real viewer with the token then plays.
        time.sleep(0.5)
        done, es = run_client([sys.executable, str(HERE / "whep_aiortc.py"), url, "--seconds", "4",
                               "--token", viewer_token(KEY)], workdir / "viewer.log", 60)
        assert done.get("connected") and done["videoFrames"] > 30 and done["audioFrames"] > 100, es
    finally:
        pub.stop()
        gw.stop()

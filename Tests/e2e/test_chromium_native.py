"""Debian Chromium plays the stream natively in <video> (fMP4 LL-HLS, separate audio rendition)."""
from __future__ import annotations

import functools
import http.server
import threading

import pytest

from browser import headless_chromium, unavailable as no_browser
from procs import ARTIFACTS, free_port, ffmpeg_cmd
from waiting import eventually, eventually_in_page

KEY = "e2e-chromium"

PAGE = """<!doctype html><html><body style="margin:0;background:#000">
<video id="v" muted autoplay playsinline width="1280" height="720" src="{src}"></video>
<script>
const v = document.getElementById('v');
window.events = [];
for (const e of ['loadedmetadata', 'playing', 'waiting', 'stalled', 'error', 'ended'])
  v.addEventListener(e, () => window.events.push([e, performance.now() | 0, v.currentTime]));
</script></body></html>"""


@pytest.fixture
def page_server(workdir):
    """A second origin (another port) serving the test page, so the gateway's CORS headers matter."""
    handler = functools.partial(http.server.SimpleHTTPRequestHandler, directory=str(workdir))
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    t = threading.Thread(target=httpd.serve_forever, daemon=True)
    t.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


@pytest.fixture
def driver(workdir):
    if no_browser():
        pytest.skip(no_browser())
    d = headless_chromium(workdir, window="1280,760")
    yield d
    d.quit()


def _listed(url: str) -> tuple[float, int]:
    """(seconds of complete segments, TARGETDURATION) of the first variant's media playlist."""
    import requests
    from urllib.parse import urljoin

    import hlsvalidate as hv
    mv = hv.parse_multivariant(requests.get(url, timeout=5).text, url)
    media = urljoin(url, mv.variants[0][1])
    pl = hv.parse_media_playlist(requests.get(media, timeout=5).text, media)
    return sum(s.duration for s in pl.segments), pl.target_duration or 1


@pytest.mark.parametrize("tune_in", ["steady", "at-start"])
def test_chromium_plays_the_stream_natively(tune_in, gateway, publishers, page_server, driver, workdir):
    """steady: the page opens once the playlist holds 3 x TD + TD of segments (Chromium starts
    HOLD-BACK = 3 x TD behind the end). at-start: as soon as the multivariant answers 200, like a
    viewer who opens the page as the streamer goes live (M10: a window shorter than 3 x TD)."""
    key = f"{KEY}-{tune_in}"
    pub = publishers(ffmpeg_cmd(gateway.rtmp_url(key), 25))
    (workdir / "index.html").write_text(PAGE.format(src=gateway.hls_url(key)))
    from follower import wait_for_multivariant
    assert wait_for_multivariant(gateway.hls_url(key), 15) is not None, gateway.log()[-2000:]
    if tune_in == "steady":
        eventually(lambda: _listed(gateway.hls_url(key)), 10, until=lambda l: l[0] >= 4 * l[1], period=0.2)
    listed = _listed(gateway.hls_url(key))[0]
    driver.get(f"http://127.0.0.1:{page_server.server_address[1]}/index.html")
    state = eventually_in_page(
        driver,
        "const v = document.getElementById('v'); return {t: v.currentTime, w: v.videoWidth, h: v.videoHeight,"
        " rs: v.readyState, err: v.error && (v.error.code + ' ' + v.error.message), ev: window.events};",
        lambda s: s["t"] > 2.5 or s["err"], 25)
    driver.save_screenshot(str(workdir / "chromium.png"))
    (ARTIFACTS / f"chromium-native-{tune_in}.png").write_bytes((workdir / "chromium.png").read_bytes())
    context = f"{listed:.3f} s of complete segments listed when the page opened\n{gateway.log()[-1500:]}\n{pub.log()[-500:]}"
    assert not state.get("err"), f"video error {state}\n{context}"
    assert state.get("t", 0) > 2, f"currentTime did not pass 2 s: {state}\n{context}"
    assert state.get("w") == 1280 and state.get("h") == 720, state

"""The player without the internet, and embedded in someone else's page.

With the default config the gateway serves hls.js itself (`/pages/hls.mjs`, from `make hlsjs`): `/watch/{key}` plays
with it, and a page of another origin embeds the watch page's player as the README's "Embed the player" shows
(`/pages/sluice-player.js` + `/pages/hls.mjs` from the gateway, the watch page's settings and live-edge keeper).
"""
from __future__ import annotations


import pytest
import requests

import hlsjs
from browser import PageServer, headless_chromium, unavailable as no_browser
from procs import ARTIFACTS, Gateway, Publisher, ffmpeg_cmd
from waiting import eventually_in_page

KEY = "e2e-embed"

# The README's snippet, with HOST filled in by the test.
EMBED = """<!doctype html><html><body>
<video id="v" muted autoplay playsinline width="640" height="360"></video>
<script src="{base}/pages/sluice-player.js"></script>
<script type="module">
const video = document.getElementById('v');
const Hls = await SluicePlayer.loadHls('{base}/pages/hls.mjs');
const hls = new Hls(SluicePlayer.hlsConfig());
const keeper = new LiveKeeper(hls, video);
setInterval(() => keeper.tick(), 250);
hls.attachMedia(video);
hls.loadSource('{base}/live/{key}/index.m3u8');
window.embedded = {{hls, errors: []}};
hls.on(Hls.Events.ERROR, (e, d) => {{ if (d.fatal) window.embedded.errors.push(d.details); }});
</script></body></html>"""


@pytest.fixture(scope="module")
def live():
    if no_browser():
        pytest.skip(no_browser())
    try:
        hlsjs.extract()
    except hlsjs.Unavailable as e:
        pytest.skip(str(e))
    workdir = ARTIFACTS / "test_embed"
    workdir.mkdir(parents=True, exist_ok=True)
    gw = Gateway(workdir).start()
    base = f"http://127.0.0.1:{gw.http_port}"
    (workdir / "index.html").write_text(EMBED.format(base=base, key=KEY))
    pages = PageServer(workdir)
    pub = Publisher(ffmpeg_cmd(gw.rtmp_url(KEY), 25, size="640x360"), workdir / "publisher.log")
    driver = headless_chromium(workdir)
    try:
        yield {"gw": gw, "base": base, "page": pages.url("index.html"), "driver": driver}
    finally:
        driver.quit()
        pub.stop()
        pages.close()
        gw.stop()


def test_the_gateway_serves_hls_js_to_any_origin(live):
    r = requests.get(live["base"] + "/pages/hls.mjs", timeout=10)
    assert r.status_code == 200 and "javascript" in r.headers.get("Content-Type", ""), r.headers
    assert r.headers.get("Access-Control-Allow-Origin") == "*", r.headers
    assert b"lowLatencyMode" in r.content
    assert "the pages load hls.js from this gateway" in live["gw"].log()


def test_the_watch_page_plays_with_the_gateways_own_hls_js(live):
    d = live["driver"]
    d.get(f"{live['base']}/watch/{KEY}")
    s = eventually_in_page(d, "const p = window.sluicePlayer || {}; const v = document.getElementById('video');"
                              " return {engine: p.engine, error: p.error, t: v.currentTime};",
                           lambda s: s["t"] > 3 or s["error"], 30)
    assert s["engine"] and s["engine"].startswith("hls.js 1."), s
    assert not s["error"] and s["t"] > 3, s


def test_a_page_of_another_origin_embeds_the_player(live):
    d = live["driver"]
    d.get(live["page"])
    s = eventually_in_page(d, "const v = document.getElementById('v'); const e = window.embedded;"
                              " return {t: v.currentTime, errors: e ? e.errors : null, latency: e ? e.hls.latency : null};",
                           lambda s: s["t"] > 4 or (s["errors"] or []), 30)
    assert s["errors"] == [] and s["t"] > 4, s
    # The keeper holds it near hls.js's target (PART-HOLD-BACK 0.6 s): well under a second behind the edge.
    assert s["latency"] is not None and s["latency"] < 1.5, s

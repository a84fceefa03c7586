"""The gateway's own pages in headless Chromium (Selenium): `/` lists a stream published with the ffmpeg CLI,
`/watch/{key}` plays it with hls.js (low-latency mode, loaded from `pages.hlsjs_url`) and with Chromium's native
HLS (`?engine=native`), and `/dashboard` draws its latency charts.

hls.js is the ES-module chunk of the PyPI wheel gradio==6.31.0, extracted at test time (test_hlsjs_ladder) and
served by a local http.server on another origin with CORS, exactly as a CDN would: SLUICE_PAGES_HLSJS_URL points
the page at it. The chunk exports a helper whose result's constructor is Hls: the page's module fallback finds it.
Screenshots go to .build/e2e-artifacts/pages-*.png.
"""
from __future__ import annotations

import functools
import http.server
import os
import re
import shutil
import signal
import statistics
import threading
import time

import pytest

from follower import wait_for_multivariant
from procs import ARTIFACTS, FAST_SEGMENTS, Gateway, Publisher, ffmpeg_cmd, free_port
from waiting import eventually, eventually_in_page
from test_hlsjs_ladder import _extract_hlsjs

KEY = "e2e-pages"
CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
MAX_LATENCY_S = 2.0


class _CORSHandler(http.server.SimpleHTTPRequestHandler):
    """A CDN stand-in: module scripts from another origin need Access-Control-Allow-Origin."""

    def end_headers(self):
        self.send_header("Access-Control-Allow-Origin", "*")
        super().end_headers()

    def log_message(self, *args, **kwargs):
        pass


@pytest.fixture(scope="module")
def live():
    """One gateway (pages.hlsjs_url from the environment), one ffmpeg publisher at 480p (a 360p rung), one hls.js host."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("chromium or /usr/bin/chromedriver is not installed")
    workdir = ARTIFACTS / "test_pages"
    workdir.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(_extract_hlsjs(), workdir / "hls-chunk.js")
    handler = functools.partial(_CORSHandler, directory=str(workdir))
    cdn = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    threading.Thread(target=cdn.serve_forever, daemon=True).start()
    hlsjs_url = f"http://127.0.0.1:{cdn.server_address[1]}/hls-chunk.js"
    old = os.environ.get("SLUICE_PAGES_HLSJS_URL")
    os.environ["SLUICE_PAGES_HLSJS_URL"] = hlsjs_url
    try:
        # No slate: the catch-up test freezes the publisher to make the player stall, which a slate would cover.
        gw = Gateway(workdir, FAST_SEGMENTS, env={"SLUICE_INGEST_SLATE": "false"}).start()
    finally:
        if old is None:
            os.environ.pop("SLUICE_PAGES_HLSJS_URL", None)
        else:
            os.environ["SLUICE_PAGES_HLSJS_URL"] = old
    pub = Publisher(ffmpeg_cmd(gw.rtmp_url(KEY), 120, size="854x480"), workdir / "publisher.log")
    assert wait_for_multivariant(gw.hls_url(KEY), 20) is not None, gw.log()[-2000:]

    os.environ["SE_AVOID_STATS"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in ("--headless=new", "--autoplay-policy=no-user-gesture-required", "--no-sandbox", "--window-size=1300,900"):
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER, log_output=str(workdir / "chromedriver.log")), options=opts)
    base = f"http://127.0.0.1:{gw.http_port}"
    yield dict(gw=gw, pub=pub, driver=driver, base=base, workdir=workdir, hlsjs_url=hlsjs_url)
    try:
        (workdir / "console.log").write_text("\n".join(str(e) for e in driver.get_log("browser")))
    except Exception:  # noqa: BLE001 - the console log is an artifact, not a result
        pass
    driver.quit()
    if pub.proc.poll() is None:
        pub.stop(signal.SIGKILL)
    gw.stop()
    cdn.shutdown()
    cdn.server_close()


def _shot(live, name: str) -> None:
    live["driver"].save_screenshot(str(ARTIFACTS / f"pages-{name}.png"))


PLAYER_JS = ("const v = document.getElementById('video'); const p = window.sluicePlayer || {};"
             " const l = document.getElementById('latency');"
             " return {t: v.currentTime, w: v.videoWidth, h: v.videoHeight, err: v.error && v.error.code,"
             " engine: p.engine, error: p.error, latency: p.latency, shown: l && l.dataset.seconds, text: l && l.textContent,"
             " level: p.level, buffer: p.buffer, levels: p.hls ? p.hls.levels.length : null,"
             " options: [...document.querySelectorAll('#rendition option')].map(o => o.textContent)};")


def test_index_lists_the_published_stream(live):
    d = live["driver"]
    d.get(live["base"] + "/")
    row = eventually_in_page(d, f"const r = document.querySelector('tr[data-key=\"{KEY}\"]'); return r && {{"
                                " href: r.querySelector('a.stream-link').getAttribute('href'), text: r.textContent,"
                                " ingest: r.querySelector('td[data-hop=ingest]').textContent};",
                             lambda r: r and "360p" in r["text"] and r["ingest"] != "–", 15)
    _shot(live, "index")
    assert row, f"/ does not list {KEY}\n{live['gw'].log()[-1500:]}"
    assert row["href"] == f"/watch/{KEY}", row
    assert "live" in row["text"] and "360p" in row["text"], row
    # Resolution and bit rate are separate figures ("640×360 · 0.81 Mb/s"), not run together.
    rungs = d.execute_script(
        f"return [...document.querySelectorAll('tr[data-key=\"{KEY}\"] .rungs > span')].map(s => s.innerText);")
    assert any(re.search(r"\d+×\d+ · [\d.]+ [kM]b/s", r) for r in rungs), rungs
    # The OBS server URL names the port this gateway's RTMP ingest really listens on.
    rtmp = d.execute_script("return document.getElementById('rtmp').textContent;")
    assert rtmp.endswith(f":{live['gw'].rtmp_port}/live"), rtmp
    p50 = float(row["ingest"].split("/")[0])
    assert p50 >= 0, row
    print(f"index row: {row['text']}")


def test_watch_plays_with_hlsjs_in_low_latency_mode(live):
    d = live["driver"]
    d.get(f"{live['base']}/watch/{KEY}")
    s = eventually_in_page(d, PLAYER_JS, lambda s: s["t"] > 2 or s["err"], 30)
    assert s["engine"] and s["engine"].startswith("hls.js"), f"engine {s}\n{live['gw'].log()[-1000:]}"
    assert s["t"] > 2 and not s["err"], f"hls.js did not play: {s}"
    t0 = s["t"]
    samples = []
    for _ in range(12):  # 3 s of overlay readings
        time.sleep(0.25)
        s = d.execute_script(PLAYER_JS)
        samples.append(float(s["shown"]) if s["shown"] else None)
    _shot(live, "watch-hlsjs")
    assert s["t"] > t0 + 2, f"currentTime advanced {s['t'] - t0:.2f} s in 3 s: {s}"
    assert all(v is not None for v in samples), f"latency overlay not a number: {samples} ({s['text']})"
    median = statistics.median(samples)
    print(f"hls.js {s['engine']}: overlay latency {samples}, median {median:.3f} s, level {s['level']}, "
          f"buffer {s['buffer']:.2f} s, picker {s['options']}")
    assert 0 < median < MAX_LATENCY_S, f"latency overlay median {median:.3f} s (want < {MAX_LATENCY_S}): {samples}"
    assert s["text"].endswith(" s") and s["levels"] == 2 and len(s["options"]) == 3, s


def test_watch_plays_with_native_hls(live):
    d = live["driver"]
    d.get(f"{live['base']}/watch/{KEY}?engine=native")
    s = eventually_in_page(d, PLAYER_JS, lambda s: s["t"] > 2.5 or s["err"], 30)
    _shot(live, "watch-native")
    assert s["engine"] == "native HLS", s
    assert s["t"] > 2.5 and not s["err"], f"native HLS did not play: {s}\n{live['gw'].log()[-1000:]}"
    assert s["h"] == 480, s
    print(f"native: t={s['t']:.2f} {s['w']}x{s['h']} latency overlay {s['text']}")


def test_dashboard_draws_hop_charts(live):
    d = live["driver"]
    d.get(f"{live['base']}/dashboard?stream={KEY}")
    charts = eventually_in_page(d, "return [...document.querySelectorAll('svg.chart')].map(s => ({chart: s.dataset.chart,"
                                   " points: Math.max(0, ...[...s.querySelectorAll('path[data-series]')].map(p => (p.getAttribute('d').match(/L/g) || []).length))}));",
                                lambda cs: cs and sum(1 for c in cs if c["chart"].startswith("hop:") and c["points"] >= 3) >= 2, 15)
    _shot(live, "dashboard")
    by = {c["chart"]: c["points"] for c in charts or []}
    assert by.get("hop:ingest", 0) >= 3 and by.get("hop:package", 0) >= 3, f"charts {by}"
    assert "viewers" in by and "bitrate" in by, by
    print(f"dashboard charts (segments per busiest line): {by}")


def test_pages_escape_and_reject_bad_keys(live):
    import requests
    base = live["base"]
    assert requests.get(base + "/watch/a%3Cscript%3E", timeout=5).status_code == 404
    page = requests.get(f"{base}/watch/{KEY}", timeout=5)
    assert page.status_code == 200 and page.headers["Content-Type"].startswith("text/html")
    # The configured URL reaches the page as JSON inside <script>, never as raw markup.
    assert '"hlsjsUrl":"' + live["hlsjs_url"].replace("/", "\\/") + '"' in page.text, page.text[:600]
    assert f"<title>{KEY} — Sluice</title>" in page.text


EDGE_JS = ("const e = document.getElementById('edge'), r = document.getElementById('speed');"
           " const v = document.getElementById('video');"
           " return {edge: window.sluicePlayer && window.sluicePlayer.edge, rate: r ? Number(r.dataset.rate) : null,"
           " jumps: r ? Number(r.dataset.jumps) : 0, why: document.getElementById('speed-why').textContent,"
           " shown: r && r.textContent, t: v.currentTime, waiting: v.readyState < 3};")


def test_watch_catches_up_after_a_stall(live):
    """The publisher freezes 3 s (SIGSTOP), then sends its backlog: the player stalls and falls ~2 s further behind.
    hls.js alone speeds up only within one TARGETDURATION of its target and with over 1 s buffered, and would stay
    behind for good (seen: 3.3 s for the rest of the run); the watch page's keeper (sluice-player.js) jumps to the
    live position, says so, and is back near its old distance from the edge. Runs last: it freezes the publisher."""
    d = live["driver"]
    d.get(f"{live['base']}/watch/{KEY}")
    s = eventually_in_page(d, PLAYER_JS, lambda s: s["t"] > 3 or s["err"], 30)
    assert s["t"] > 3 and not s["err"], f"hls.js did not play: {s}"
    before = []
    for _ in range(8):
        time.sleep(0.25)
        e = d.execute_script(EDGE_JS)
        if e["edge"] is not None:
            before.append(e["edge"])
    assert before, "no hls.latency reading"
    baseline = statistics.median(before)
    pub = live["pub"].proc
    jumps0 = d.execute_script(EDGE_JS)["jumps"]
    pub.send_signal(signal.SIGSTOP)
    frozen, start = True, time.monotonic()
    trace = []

    def back_near_baseline():
        """Thaws the publisher 3 s in; the edge reading once the page jumped back near its baseline, else None."""
        nonlocal frozen
        if frozen and time.monotonic() >= start + 3:
            pub.send_signal(signal.SIGCONT)
            frozen = False
        e = d.execute_script(EDGE_JS)
        trace.append((round(time.monotonic() - start, 2), e["edge"], e["rate"], e["shown"], e["jumps"] - jumps0, e["why"]))
        return e if not frozen and e["jumps"] > jumps0 and e["edge"] is not None and e["edge"] < baseline + 0.6 else None

    try:
        # After the backlog the player is far behind; it must jump back to live, say so, and stay near its old distance.
        caught_up = eventually(back_near_baseline, start + 28 - time.monotonic(), period=0.2)
    finally:
        if frozen:
            pub.send_signal(signal.SIGCONT)
    _shot(live, "watch-catch-up")
    peak = max((x[1] for x in trace if x[1] is not None), default=None)
    print(f"catch-up: baseline {baseline:.2f} s behind the edge, peak {peak}, trace {trace[:6]} ... {trace[-3:]}")
    # hls.latency moves only on timeupdate, so the overlay may never show the worst of it; the keeper jumps only when
    # more than TARGETDURATION + 0.5 s past its target, so a jump is itself proof that the freeze put it behind.
    assert any(x[4] for x in trace), f"the page never jumped to live (peak {peak}): {trace}"
    assert any(x[5] for x in trace), f"the page never said it caught up: {trace}"
    assert caught_up, f"not back within 0.6 s of the {baseline:.2f} s baseline in 25 s: {trace[-8:]}"
    # The stall raised hls.js's target latency for good (hls.js never lowers it); 20 s without one, the keeper does.
    targets = []

    def back_to_part_hold_back() -> bool:
        t = d.execute_script("const h = window.sluicePlayer.hls, d = h && h.latestLevelDetails;"
                             " return d ? [h.targetLatency, d.partHoldBack] : null;")
        if not t:
            return False
        targets.append((round(time.monotonic() - start, 1), round(t[0], 3)))
        return t[0] <= t[1] + 0.01 and any(x[1] > t[1] + 0.01 for x in targets)

    eventually(back_to_part_hold_back, 35, period=0.5)
    phb = d.execute_script("return window.sluicePlayer.hls.latestLevelDetails.partHoldBack;")
    assert any(x[1] > phb + 0.01 for x in targets), f"the stall did not raise hls.js's target: {targets}"
    assert targets[-1][1] <= phb + 0.01, f"target latency not back to PART-HOLD-BACK {phb}: {targets[-6:]}"

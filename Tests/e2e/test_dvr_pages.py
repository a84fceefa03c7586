"""DVR over the issue's full window and the pages' recording views (issue 21), in headless Chromium (Selenium).

One gateway with `hls.dvr_window_s: 120` and `--record`, the watch page's hls.js loaded from another origin (as a
CDN would serve it; test_pages explains). A 6 s publish leaves a finished recording: the streams page lists it with a
play link that plays the VOD on the watch page (with an MP4 download link), marks the stream still publishing as
being recorded, and the dashboard shows the recordings' disk use. A 150 s publish fills the DVR window: after 75 s
the watch page shows a seek bar reaching ≥ 60 s back; moving it 60 s back plays from there (latency ≈ 60 s and the
play head advancing), and the "live" button brings hls.js back within a second of its live target.
"""
from __future__ import annotations

import functools
import http.server
import shutil
import threading
import time

import pytest
import requests

from procs import Gateway, Publisher, ffmpeg_cmd, free_port
from waiting import eventually_in_page
from test_hlsjs_ladder import _extract_hlsjs, driver  # noqa: F401 - fixture
from test_pages import _CORSHandler
from test_recording import finished

WATCH_JS = ("const v = document.getElementById('video'); const p = window.sluicePlayer || {};"
            " const bar = document.getElementById('dvr');"
            " return {t: v.currentTime, paused: v.paused, latency: p.latency, engine: p.engine, error: p.error,"
            " target: p.hls ? p.hls.targetLatency : null, shown: bar && !bar.hidden,"
            " start: p.dvr && p.dvr.start, end: p.dvr && p.dvr.end, behind: p.dvr && p.dvr.behind,"
            " label: document.getElementById('dvr-behind').textContent,"
            " download: document.getElementById('download').hidden ? null : document.getElementById('download').href};")


@pytest.fixture
def cdn(workdir):
    shutil.copyfile(_extract_hlsjs(), workdir / "hls-chunk.js")
    httpd = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()),
                                            functools.partial(_CORSHandler, directory=str(workdir)))
    threading.Thread(target=httpd.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}/hls-chunk.js"
    httpd.shutdown()
    httpd.server_close()


def test_pages_list_recordings_and_the_watch_page_seeks_60_s_back_in_a_120_s_dvr_window(workdir, cdn, driver):
    rec = workdir / "rec"
    shutil.rmtree(rec, ignore_errors=True)
    gw = Gateway(workdir, extra=["--transcode", "off", "--record", str(rec)],
                 # Slate off: the short stream's recording finishes as its publisher stops.
                 env={"SLUICE_HLS_DVR_WINDOW_S": "120", "SLUICE_PAGES_HLSJS_URL": cdn,
                      "SLUICE_INGEST_SLATE": "false", "SLUICE_HLS_RECONNECT_GRACE_S": "10"}).start()
    long = Publisher(ffmpeg_cmd(gw.rtmp_url("dvr-long"), 150, size="640x360"), workdir / "long.log")
    short = Publisher(ffmpeg_cmd(gw.rtmp_url("dvr-short"), 6, size="640x360"), workdir / "short.log")
    t0 = time.monotonic()
    base = f"http://127.0.0.1:{gw.http_port}"
    d = driver
    try:
        assert short.wait(40) == 0, short.log()
        done = finished(gw, "dvr-short")
        assert done, gw.log()[-2000:]
        rid = done[0]["id"]
        # Streams page: the recording with its play link; the long stream marked as being recorded.
        d.get(base + "/")
        row = eventually_in_page(d, f"const r = document.querySelector('tr[data-recording=\"dvr-short/{rid}\"]');"
                                    " const s = document.querySelector('tr[data-key=\"dvr-long\"] .pill.rec');"
                                    " return r && {play: r.querySelector('a.play-link').getAttribute('href'), text: r.textContent,"
                                    " rec: !!s};", lambda r: r and r["rec"], 15)
        assert row and row["play"] == f"/watch/dvr-short?recording={rid}" and "finished" in row["text"], row
        # Dashboard: disk use of the recordings.
        d.get(base + "/dashboard")
        disk = eventually_in_page(d, "const e = document.getElementById('disk'); return {text: e.textContent, bytes: e.dataset.bytes};",
                                  lambda x: x["bytes"] and int(x["bytes"]) > 0, 15)
        listed = requests.get(base + "/api/recordings/usage", timeout=10).json()
        assert disk["bytes"] and int(disk["bytes"]) > 100_000 and "recording now: dvr-long" in disk["text"], disk
        assert listed["recordings"] == 2, listed
        # The play link plays the recording (VOD) to its end, with its MP4 download offered.
        d.get(base + row["play"])
        vod = eventually_in_page(d, WATCH_JS, lambda s: s["t"] >= 5, 30)
        assert vod["t"] >= 5 and not vod["shown"], vod
        assert vod["download"] and vod["download"].endswith(f"/vod/dvr-short/{rid}.mp4"), vod
        # DVR: wait until 75 s of the long stream are listed, then open its watch page.
        time.sleep(max(0, 78 - (time.monotonic() - t0)))
        d.get(base + "/watch/dvr-long")
        live = eventually_in_page(d, WATCH_JS, lambda s: s["shown"] and s["latency"] and s["end"] - s["start"] >= 65, 30)
        assert live["shown"] and live["end"] - live["start"] >= 65, live
        assert live["label"] == "live" and live["latency"] < 5, live
        # Move the seek bar 60 s back, as a viewer drags it (input, then change).
        d.execute_script("const s = document.getElementById('dvr-seek'); s.value = String(Number(s.max) - 60);"
                         " s.dispatchEvent(new Event('input')); s.dispatchEvent(new Event('change'));")
        back = eventually_in_page(d, WATCH_JS, lambda s: s["latency"] and s["latency"] > 55 and not s["paused"], 15)
        assert back["latency"] and 55 < back["latency"] < 70 and back["label"].startswith("−"), back
        t_back = back["t"]
        time.sleep(4)
        still = d.execute_script(WATCH_JS)
        assert still["t"] - t_back >= 3 and still["latency"] > 55, (back, still)
        d.find_element("id", "dvr-live").click()
        near = eventually_in_page(d, WATCH_JS, lambda s: s["latency"] and s["target"] and s["latency"] < s["target"] + 1, 15)
        assert near["latency"] < near["target"] + 1 and near["label"] == "live", near
        assert not near["error"], near
    finally:
        long.stop()
        short.stop()
        gw.stop()

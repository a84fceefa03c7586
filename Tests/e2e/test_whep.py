"""WebRTC playback over WHEP (issue 18) with real players, from an RTMP source with B-frames and AAC.

One gateway, one `ffmpeg -bf 2` + AAC publisher over RTMP. Headless Chromium (whep_chromium.py) and aiortc
(whep_aiortc.py) each watch for >= 10 s: Chromium must present frames (requestVideoFrameCallback) and receive
Opus (getStats inbound-rtp audio), aiortc must decode H.264 and Opus frames. The endpoint's HTTP contract
(404/400/422/405/OPTIONS/DELETE) and the Prometheus counters are checked on the same gateway.
A second test publishes over WHIP (aiortc) and watches over WHEP (aiortc): Opus and H.264 pass through.
Artifacts: .build/e2e-artifacts/whep/.
"""
from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest

from procs import ARTIFACTS, FAST_SEGMENTS, SLUICE, Gateway, Publisher, ffmpeg_cmd, free_port
from waiting import eventually
from whip_chromium import CHROMEDRIVER, CHROMIUM

HERE = Path(__file__).resolve().parent
KEY = "e2e-whep"
WORKDIR = ARTIFACTS / "whep"
WATCH_SECONDS = 12


def events(text: str) -> list[dict]:
    return [json.loads(line) for line in text.splitlines() if line.startswith("{")]


def request(method: str, url: str, body: bytes | None = None, headers: dict | None = None):
    r = urllib.request.Request(url, data=body, method=method)
    for name, value in (headers or {}).items():
        r.add_header(name, value)
    try:
        with urllib.request.urlopen(r, timeout=15) as response:
            return response.status, dict(response.headers), response.read().decode()
    except urllib.error.HTTPError as error:
        return error.code, dict(error.headers), error.read().decode()


def wait_live(gw: Gateway, key: str, timeout: float = 20) -> None:
    def live() -> bool:
        status, _, body = request("GET", f"http://127.0.0.1:{gw.http_port}/api/streams")
        return status == 200 and any(s["key"] == key and s["state"] == "live" for s in json.loads(body))

    if not eventually(live, timeout, period=0.25):
        pytest.fail(f"{key} did not go live:\n{gw.log()[-2000:]}")


def run_client(cmd: list[str], log: Path, timeout: float) -> tuple[dict, list[dict]]:
    proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
    log.write_text(f"$ {' '.join(cmd)}\n{proc.stdout}\n--- stderr\n{proc.stderr}")
    es = events(proc.stdout)
    return next((e for e in es if e.get("done")), {}), es


@pytest.fixture(scope="module")
def live():
    WORKDIR.mkdir(parents=True, exist_ok=True)
    for old in WORKDIR.iterdir():
        if old.is_file():
            old.unlink()
    gw = Gateway(WORKDIR, FAST_SEGMENTS + ["--webrtc-port", str(free_port())]).start()
    # B-frames and AAC: the two things browsers' WebRTC cannot take as they are.
    pub = Publisher(ffmpeg_cmd(gw.rtmp_url(KEY), 120, bframes=2, size="640x360"), WORKDIR / "publisher.log")
    try:
        wait_live(gw, KEY)
        time.sleep(2)  # the ladder's rungs come up at the first keyframe
        yield gw
    finally:
        pub.stop()
        gw.stop()


def metric(gw: Gateway, name: str, **labels) -> float:
    _, _, text = request("GET", f"http://127.0.0.1:{gw.http_port}/metrics")
    total = 0.0
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        if all(f'{k}="{v}"' in line for k, v in labels.items()):
            total += float(line.rsplit(" ", 1)[1])
    return total


def test_chromium_plays_rtmp_with_bframes_and_aac(live):
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("chromium or /usr/bin/chromedriver is not installed")
    done, es = run_client([sys.executable, str(HERE / "whep_chromium.py"), f"http://127.0.0.1:{live.http_port}", KEY,
                           "--seconds", str(WATCH_SECONDS), "--shots", str(WORKDIR), "--delete"],
                          WORKDIR / "chromium.log", WATCH_SECONDS + 90)
    context = f"{done}\n{live.log()[-3000:]}"
    assert done.get("status") == 201 and done.get("connected"), context
    assert done["watchedSeconds"] >= 10, context
    ticks = [e["tick"]["frames"] for e in es if "tick" in e]
    # Frames keep being presented through the whole run, not only at the start.
    assert len(ticks) >= 10 and ticks[-1] > ticks[len(ticks) // 2] > ticks[0], ticks
    assert done["frames"] >= 10 * 15, context
    assert (done["width"], done["height"]) == (640, 360), context
    # Over >= 10 s: 20 ms Opus packets (50 a second) and decoded pictures, with the margins the counts above take.
    assert done["stats"]["audio"].get("packetsReceived", 0) >= 10 * 40, context
    assert done["stats"]["video"].get("framesDecoded", 0) >= 10 * 15, context
    # We answer goog-remb, so Chromium's receiver sends its bandwidth estimate (REMB); the session's last line (after
    # the page's DELETE) shows it.
    assert done.get("deleteStatus") == 200, context
    session = es[0]["posted"]["location"].rsplit("/", 1)[1]
    end = time.monotonic() + 15
    ended = []
    while not ended and time.monotonic() < end:
        ended = [line for line in live.log().splitlines()
                 if line.endswith("WHEP session ended") and f"session={session}" in line]
        time.sleep(0.2)
    estimate = re.search(r"estimate_kbps=(\d+)", ended[0] if ended else "")
    assert estimate and int(estimate.group(1)) > 0, ended or live.log()[-3000:]


def test_aiortc_decodes_h264_and_opus_from_rtmp(live):
    url = f"http://127.0.0.1:{live.http_port}/whep/{KEY}"
    done, es = run_client([sys.executable, str(HERE / "whep_aiortc.py"), url, "--seconds", str(WATCH_SECONDS)],
                          WORKDIR / "aiortc.log", WATCH_SECONDS + 60)
    context = f"{es}\n{live.log()[-3000:]}"
    assert done.get("connected"), context
    assert done["watchedSeconds"] >= 10, context
    # aiortc receives only (constrained) baseline: a B-frame High source reaches it through the WebRTC rung.
    assert es[0]["source"] == "webrtc-rung", context
    assert done["videoFrames"] >= 10 * 15, context
    assert (done["width"], done["height"]) == (640, 360), context
    # 20 ms Opus frames: 50 per second.
    assert done["audioFrames"] >= 10 * 40, context
    assert done["deleted"] == 200, context
    assert metric(live, "sluice_whep_packets_sent_total", stream=KEY, kind="video") > 0
    assert metric(live, "sluice_whep_packets_sent_total", stream=KEY, kind="audio") > 0


def test_endpoint_http_contract(live):
    base = f"http://127.0.0.1:{live.http_port}"
    offer = (HERE / "whep_offer_aiortc.sdp").read_text()
    sdp = {"Content-Type": "application/sdp"}
    status, headers, _ = request("OPTIONS", f"{base}/whep/{KEY}")
    assert status == 204 and headers.get("Accept-Post") == "application/sdp", headers
    assert "POST" in headers.get("Access-Control-Allow-Methods", ""), headers
    assert request("POST", f"{base}/whep/nobody-here", offer.encode(), sdp)[0] == 404
    assert request("POST", f"{base}/whep/{KEY}", b"hello", sdp)[0] == 400
    assert request("POST", f"{base}/whep/{KEY}", offer.encode(), {"Content-Type": "text/plain"})[0] == 415
    # VP8 only: no H.264 the stream can send.
    vp8 = offer.replace(" H264/90000", " VP9/90000")
    status, _, body = request("POST", f"{base}/whep/{KEY}", vp8.encode(), sdp)
    assert status == 422 and "H.264" in body, body
    status, headers, answer = request("POST", f"{base}/whep/{KEY}", offer.encode(), sdp)
    assert status == 201 and headers["Content-Type"] == "application/sdp", answer
    location, etag = headers["Location"], headers["ETag"]
    assert re.fullmatch(rf"/whep/{KEY}/[0-9a-f]+", location) and etag.startswith('"'), headers
    assert "a=sendonly" in answer and "a=ice-lite" in answer
    # The viewer is listed (it never connects: this offer's peer is not running) and `sluice stats` shows it.
    status, _, listed = request("GET", f"{base}/api/whep")
    rows = [r for r in json.loads(listed) if r["session"] == location.rsplit("/", 1)[1]]
    assert status == 200 and rows and rows[0]["phase"] == "connecting" and rows[0]["stream"] == KEY, listed
    stats = subprocess.run([str(SLUICE), "stats", base, "--once"], capture_output=True, text=True, timeout=20).stdout
    assert re.search(r"whep: \d+ viewer\(s\)", stats) and "connecting" in stats, stats
    assert request("PATCH", base + location, b"", {"Content-Type": "application/trickle-ice-sdpfrag"})[0] == 405
    assert request("DELETE", base + location)[0] == 200
    assert request("DELETE", base + location)[0] in (200, 404)
    assert request("DELETE", f"{base}/whep/{KEY}/ffffffff")[0] == 404


def test_aiortc_watches_a_whip_source_passed_through(workdir):
    """WHIP in (aiortc: H.264 constrained baseline + Opus), WHEP out (aiortc): both tracks go out as they came."""
    gw = Gateway(workdir, FAST_SEGMENTS + ["--webrtc-port", str(free_port()), "--transcode", "off"]).start()
    key = "e2e-whip-whep"
    pub = Publisher([sys.executable, str(HERE / "whip_aiortc.py"), f"http://127.0.0.1:{gw.http_port}/whip/{key}",
                     "--seconds", "40"], workdir / "publisher.log")
    try:
        wait_live(gw, key)
        time.sleep(1)
        done, es = run_client([sys.executable, str(HERE / "whep_aiortc.py"),
                               f"http://127.0.0.1:{gw.http_port}/whep/{key}", "--seconds", str(WATCH_SECONDS)],
                              workdir / "viewer.log", WATCH_SECONDS + 60)
        context = f"{es}\n{gw.log()[-3000:]}"
        assert done.get("connected"), context
        assert es[0]["source"] == "passthrough", context
        assert done["watchedSeconds"] >= 10, context
        # aiortc publishes ~30 fps but slows under load: ask for half over the 10 s.
        assert done["videoFrames"] >= 10 * 15, context
        assert (done["width"], done["height"]) == (640, 360), context
        assert done["audioFrames"] >= 10 * 40, context
        assert "WHEP audio transcoded" not in gw.log(), "WHIP's Opus must pass through"
    finally:
        pub.stop()
        gw.stop()


def test_watch_page_switches_to_webrtc_with_latency_on_screen(live):
    """/watch/{key}?protocol=webrtc plays over WHEP and shows the latency from RTCP sender reports."""
    if not (os.path.exists(CHROMIUM) and os.path.exists(CHROMEDRIVER)):
        pytest.skip("chromium or /usr/bin/chromedriver is not installed")
    os.environ["SE_AVOID_STATS"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    from whip_chromium import FLAGS

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in FLAGS:
        opts.add_argument(flag)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    try:
        driver.get(f"http://127.0.0.1:{live.http_port}/watch/{KEY}?protocol=webrtc")
        read = "const p = window.sluicePlayer; const v = document.getElementById('video');" \
               " return {engine: p.engine, latency: p.latency, error: p.error, t: v.currentTime," \
               " shown: document.getElementById('latency').textContent," \
               " source: document.getElementById('latency-source').textContent};"
        samples, end = [], time.monotonic() + 12
        while time.monotonic() < end:
            time.sleep(1)
            samples.append(driver.execute_script(read))
        driver.save_screenshot(str(WORKDIR / "watch-webrtc.png"))
        # The dashboard lists this viewer in its WHEP table while it plays (a second tab: the first keeps playing).
        driver.switch_to.new_window("tab")
        driver.get(f"http://127.0.0.1:{live.http_port}/dashboard")
        rows, end = [], time.monotonic() + 10
        while not rows and time.monotonic() < end:
            time.sleep(0.5)
            rows = driver.execute_script(
                "return [...document.querySelectorAll('#whep tr[data-session]')].map(r => r.textContent)")
        driver.save_screenshot(str(WORKDIR / "dashboard-whep.png"))
    finally:
        driver.quit()
    last = samples[-1]
    assert last["engine"].startswith("WebRTC (WHEP"), samples
    assert last["t"] > 5 and not last["error"], samples
    latencies = [s["latency"] for s in samples[-5:] if s["latency"] is not None]
    assert latencies and last["source"] == "(RTCP)", samples
    # Gateway → screen over WebRTC on loopback: well under a second.
    assert 0 < max(latencies) < 1.0, samples
    (WORKDIR / "watch-webrtc-latency.json").write_text(json.dumps(samples))
    assert any(KEY in r and "playing" in r for r in rows), rows


def test_viewer_stays_through_a_publisher_reconnect(workdir):
    """The RTMP publisher stops and publishes again 1-2 s later: the aiortc viewer keeps its session and decodes the
    second session too, on the same RTP streams (no burst of 'lost' packets from a sequence jump). Slate off: the feed's
    own wait for the publisher (test_continuity covers WHEP through the slate)."""
    gw = Gateway(workdir, FAST_SEGMENTS + ["--webrtc-port", str(free_port()), "--transcode", "off"],
                 env={"SLUICE_INGEST_SLATE": "false"}).start()
    key = "e2e-whep-reconnect"
    first = Publisher(ffmpeg_cmd(gw.rtmp_url(key), 7, bframes=2, size="320x240"), workdir / "publisher-1.log")
    viewer = None
    try:
        wait_live(gw, key)
        time.sleep(1)
        viewer = subprocess.Popen([sys.executable, str(HERE / "whep_aiortc.py"),
                                   f"http://127.0.0.1:{gw.http_port}/whep/{key}", "--seconds", "16"],
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        first.wait(20)
        second = Publisher(ffmpeg_cmd(gw.rtmp_url(key), 14, bframes=2, size="320x240"), workdir / "publisher-2.log")
        out, _ = viewer.communicate(timeout=60)
        (workdir / "viewer.log").write_text(out)
        done = next((e for e in events(out) if e.get("done")), {})
        second.stop()
        context = f"{done}\n{gw.log()[-2500:]}"
        assert done.get("connected") and done["state"] == "connected" and done["deleted"] == 200, context
        assert "WHEP source is back" in gw.log(), context
        # ~5 s of the first session and ~10 s of the second at 30 fps; the first alone would be ~150.
        assert done["videoFrames"] >= 300, context
        assert done["stats"]["video"]["packetsLost"] < 100, context
    finally:
        if viewer and viewer.poll() is None:
            viewer.kill()
        first.stop()
        gw.stop()


def test_joining_a_whip_passthrough_asks_its_publisher_for_a_keyframe(workdir):
    """With 4 s segments the WHIP ingest asks its publisher for an IDR only every 4 s; a WHEP viewer joining the
    passthrough asks for one itself (a PLI to the publisher through KeyframeRequests), so each join sees its first
    frame in well under the 2 s it would wait on average without."""
    gw = Gateway(workdir, ["--segment-target-seconds", "4", "--part-target-ms", "200", "--transcode", "off",
                           "--webrtc-port", str(free_port())]).start()
    key = "e2e-whip-join"
    pub = Publisher([sys.executable, str(HERE / "whip_aiortc.py"), f"http://127.0.0.1:{gw.http_port}/whip/{key}",
                     "--seconds", "60"], workdir / "publisher.log")
    try:
        wait_live(gw, key)
        time.sleep(2)
        joins = []
        for i in range(4):
            done, es = run_client([sys.executable, str(HERE / "whep_aiortc.py"),
                                   f"http://127.0.0.1:{gw.http_port}/whep/{key}", "--seconds", "1.5"],
                                  workdir / f"viewer-{i}.log", 60)
            assert done.get("connected") and done.get("source") == "passthrough", es
            joins.append(done["firstVideoAfterPostSeconds"])
            time.sleep(0.7)
        assert all(j is not None and j < 1.5 for j in joins), f"{joins}\n{gw.log()[-2000:]}"
        (workdir / "joins.json").write_text(json.dumps(joins))
    finally:
        pub.stop()
        gw.stop()

"""Headless Chromium as a WHEP viewer (draft-ietf-wish-whep-03), driven by Selenium: a recvonly
RTCPeerConnection on a gateway page POSTs its offer to /whep/KEY, plays into a muted <video>, and counts the
frames it presents with requestVideoFrameCallback for --seconds; getStats gives inbound-rtp per kind.

Prints one JSON line per second {"tick": {...}} and finally {"done": true, ...}.
"""

import argparse
import json
import os
import sys
import time
from pathlib import Path

from whip_chromium import CHROMEDRIVER, CHROMIUM, FLAGS

PLAY_JS = """
const [key, token, done] = arguments;
(async () => {
const s = window.whep = {frames: 0, state: 'new', status: null, source: null, error: null, location: null,
                         firstFrameMs: null, width: 0, height: 0, maxFrameGapMs: 0, maxFrameGapAtMs: null};
const t0 = performance.now();
try {
  const pc = window.whepPC = new RTCPeerConnection();
  pc.addTransceiver('video', {direction: 'recvonly'});
  pc.addTransceiver('audio', {direction: 'recvonly'});
  const video = document.createElement('video');
  video.muted = true; video.autoplay = true; video.playsInline = true;
  document.body.appendChild(video);
  pc.ontrack = (e) => { if (e.streams[0] && video.srcObject !== e.streams[0]) video.srcObject = e.streams[0]; };
  pc.onconnectionstatechange = () => { s.state = pc.connectionState; };
  s.glass = [];
  const count = (now, meta) => {
    s.frames += 1; s.width = meta.width; s.height = meta.height;
    // The longest wait between two presented frames after the first (a freeze), and when it ended (since POST).
    if (s.lastFrameAt !== undefined && now - s.lastFrameAt > s.maxFrameGapMs) {
      s.maxFrameGapMs = Math.round(now - s.lastFrameAt); s.maxFrameGapAtMs = Math.round(now - s.postedAt);
    }
    s.lastFrameAt = now;
    if (window.readClock) {
      // Glass: when this frame is shown minus the capture clock the publisher painted into it (same machine clock).
      const capture = window.readClock(video, meta.width, meta.height);
      if (capture !== null) s.glass.push(performance.timeOrigin + meta.expectedDisplayTime - capture);
    }
    if (s.firstFrameMs === null) {
      s.firstFrameMs = Math.round(now - t0);
      s.firstFrameAfterPostMs = Math.round(now - s.postedAt);
    }
    video.requestVideoFrameCallback(count);
  };
  video.requestVideoFrameCallback(count);
  await pc.setLocalDescription();
  await new Promise((resolve) => {
    if (pc.iceGatheringState === 'complete') return resolve();
    pc.onicegatheringstatechange = () => { if (pc.iceGatheringState === 'complete') resolve(); };
    setTimeout(resolve, 2000);
  });
  const headers = {'Content-Type': 'application/sdp'};
  if (token) headers['Authorization'] = 'Bearer ' + token;
  s.postedAt = performance.now();
  const r = await fetch('/whep/' + key, {method: 'POST', headers, body: pc.localDescription.sdp});
  s.status = r.status; s.source = r.headers.get('X-Sluice-Video-Source'); s.location = r.headers.get('Location');
  const body = await r.text();
  if (r.status !== 201) { s.error = body; return done(s); }
  // A relay in the test stands between us and the gateway: every answer candidate points at it.
  const sdp = window.whepCandidate
    ? body.replace(/^(a=candidate:\S+ \d+ udp \d+) \S+ \d+ /gm, '$1 ' + window.whepCandidate.replace(':', ' ') + ' ')
    : body;
  await pc.setRemoteDescription({type: 'answer', sdp});
  done(s);
} catch (e) { s.error = String(e); done(s); }
})();
"""

# PixelClockCode (Sources/CodecFormats/PixelClockCode.swift), read as Sources/SluiceBench/Pages/bench-player.html does.
PIXEL_CLOCK_JS = """
const COLUMNS = 32, ROWS = 2, HEIGHT_DIVISOR = 18;
const canvas = document.createElement('canvas');
const ctx = canvas.getContext('2d', {willReadFrequently: true});
function crc8(bytes) {
  let crc = 0;
  for (const b of bytes) {
    crc ^= b;
    for (let i = 0; i < 8; i++) crc = crc & 0x80 ? ((crc << 1) ^ 0x07) & 0xff : (crc << 1) & 0xff;
  }
  return crc;
}
window.readClock = function (video, w, h) {
  const band = Math.floor(ROWS * h / HEIGHT_DIVISOR);
  if (!w || !band) return null;
  if (canvas.width !== w || canvas.height !== band) { canvas.width = w; canvas.height = band; }
  ctx.drawImage(video, 0, 0, w, band, 0, 0, w, band);
  const data = ctx.getImageData(0, 0, w, band).data;
  const bits = [];
  for (let i = 0; i < COLUMNS * ROWS; i++) {
    const c = i % COLUMNS, r = Math.floor(i / COLUMNS);
    const x0 = Math.floor(c * w / COLUMNS), x1 = Math.floor((c + 1) * w / COLUMNS);
    const y0 = Math.floor(r * h / HEIGHT_DIVISOR), y1 = Math.floor((r + 1) * h / HEIGHT_DIVISOR);
    const qx = Math.floor((x1 - x0) / 4), qy = Math.floor((y1 - y0) / 4);
    const xa = x0 + qx, xb = Math.max(xa + 1, x1 - qx), ya = y0 + qy, yb = Math.max(ya + 1, y1 - qy);
    let sum = 0, n = 0;
    for (let y = ya; y < yb; y++) for (let x = xa; x < xb; x++) {
      const o = (y * w + x) * 4;
      sum += data[o] + data[o + 1] + data[o + 2];
      n += 3;
    }
    bits.push(sum / n > 128);
  }
  const sync = [1, 0, 1, 0].every((b, i) => bits[i] === !!b) && [0, 1, 0, 1].every((b, i) => bits[60 + i] === !!b);
  if (!sync) return null;
  let ms = 0;
  for (let i = 4; i < 52; i++) ms = ms * 2 + (bits[i] ? 1 : 0);
  let crc = 0;
  for (let i = 52; i < 60; i++) crc = crc * 2 + (bits[i] ? 1 : 0);
  const bytes = [];
  for (let k = 5; k >= 0; k--) bytes.push(Math.floor(ms / 2 ** (8 * k)) % 256);
  return crc8(bytes) === crc ? ms : null;
};
"""

STATS_JS = """
const done = arguments[0];
window.whepPC.getStats().then((report) => {
  const out = {video: {}, audio: {}};
  report.forEach((r) => {
    if (r.type === 'inbound-rtp') out[r.kind] = {packetsReceived: r.packetsReceived, packetsLost: r.packetsLost,
      framesDecoded: r.framesDecoded, nackCount: r.nackCount, pliCount: r.pliCount, codecId: r.codecId,
      jitterBufferDelay: r.jitterBufferDelay, jitterBufferEmittedCount: r.jitterBufferEmittedCount,
      totalSamplesReceived: r.totalSamplesReceived, retransmittedPacketsReceived: r.retransmittedPacketsReceived,
      rtxSsrc: r.rtxSsrc, freezeCount: r.freezeCount, totalFreezesDuration: r.totalFreezesDuration,
      framesDropped: r.framesDropped, frameWidth: r.frameWidth};
    if (r.type === 'codec') out[r.id] = r.mimeType + ' ' + (r.sdpFmtpLine || '');
  });
  done(out);
});
"""


def emit(obj):
    print(json.dumps(obj), flush=True)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("base", help="http://127.0.0.1:PORT of the gateway")
    parser.add_argument("key")
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--token", default="")
    parser.add_argument("--shots", default=".")
    parser.add_argument("--connect-timeout", type=float, default=20.0)
    parser.add_argument("--candidate", help="HOST:PORT replacing every candidate of the answer (a relay in the test)")
    parser.add_argument("--delete", action="store_true", help="DELETE the session at the end (else it times out)")
    parser.add_argument("--pixel-clock", action="store_true",
                        help="read the capture clock `sluice publish testsrc` paints into each frame: glass latency")
    args = parser.parse_args()
    shots = Path(args.shots)
    shots.mkdir(parents=True, exist_ok=True)

    os.environ["SE_AVOID_STATS"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER, log_output=str(shots / "whep-chromium-driver.log")),
                              options=opts)
    driver.set_script_timeout(30)
    result = {"done": True}
    try:
        # A page of the gateway's own origin: the POST is same-origin.
        driver.get(f"{args.base}/")
        if args.pixel_clock:
            driver.execute_script(PIXEL_CLOCK_JS)
        if args.candidate:
            driver.execute_script("window.whepCandidate = arguments[0];", args.candidate)
        posted = driver.execute_async_script(PLAY_JS, args.key, args.token)
        emit({"posted": posted})
        result.update(status=posted["status"], source=posted["source"], error=posted["error"])
        if posted["status"] != 201:
            return 2
        end = time.monotonic() + args.connect_timeout
        state = driver.execute_script("return window.whep")
        while state["state"] != "connected" and time.monotonic() < end:
            time.sleep(0.2)
            state = driver.execute_script("return window.whep")
        result["connected"] = state["state"] == "connected"
        if not result["connected"]:
            result["state"] = state
            return 1
        t_connected = time.monotonic()
        while time.monotonic() - t_connected < args.seconds:
            time.sleep(1)
            state = driver.execute_script("return window.whep")
            emit({"tick": {"t": round(time.monotonic() - t_connected, 1), "frames": state["frames"],
                           "state": state["state"], "height": state["height"]}})
        stats = driver.execute_async_script(STATS_JS)
        driver.save_screenshot(str(shots / "whep-chromium.png"))
        if args.delete and posted.get("location"):
            # draft-ietf-wish-whep-03 §4.2: the player ends its session with DELETE on the session URL.
            result["deleteStatus"] = driver.execute_async_script(
                "const [u, done] = arguments; fetch(u, {method: 'DELETE'}).then((r) => done(r.status), () => done(0));",
                posted["location"])
        glass = driver.execute_script("return window.whep.glass")
        if len(glass) > 60:
            # The first second (30 frames) is the join; percentiles over the rest.
            steady = sorted(glass[30:])
            pick = lambda q: round(steady[min(len(steady) - 1, int(q * len(steady)))], 1)  # noqa: E731
            result["glassMs"] = {"samples": len(steady), "p50": pick(0.5), "p90": pick(0.9), "p99": pick(0.99),
                                 "max": round(steady[-1], 1)}
        result.update(watchedSeconds=round(time.monotonic() - t_connected, 1), frames=state["frames"],
                      width=state["width"], height=state["height"], firstFrameMs=state["firstFrameMs"],
                      firstFrameAfterPostMs=state.get("firstFrameAfterPostMs"),
                      maxFrameGapMs=state.get("maxFrameGapMs"), maxFrameGapAtMs=state.get("maxFrameGapAtMs"),
                      finalState=state["state"], stats=stats)
        return 0
    finally:
        try:
            (shots / "whep-chromium-console.log").write_text("\n".join(str(e) for e in driver.get_log("browser")))
        except Exception:  # noqa: BLE001 - the console log is an artifact, not a result
            pass
        driver.quit()
        emit(result)


if __name__ == "__main__":
    sys.exit(main())

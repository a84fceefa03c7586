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
                         firstFrameMs: null, width: 0, height: 0};
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
  const count = (now, meta) => {
    s.frames += 1; s.width = meta.width; s.height = meta.height;
    if (s.firstFrameMs === null) s.firstFrameMs = Math.round(now - t0);
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
  const r = await fetch('/whep/' + key, {method: 'POST', headers, body: pc.localDescription.sdp});
  s.status = r.status; s.source = r.headers.get('X-Sluice-Video-Source'); s.location = r.headers.get('Location');
  const body = await r.text();
  if (r.status !== 201) { s.error = body; return done(s); }
  await pc.setRemoteDescription({type: 'answer', sdp: body});
  done(s);
} catch (e) { s.error = String(e); done(s); }
})();
"""

STATS_JS = """
const done = arguments[0];
window.whepPC.getStats().then((report) => {
  const out = {video: {}, audio: {}};
  report.forEach((r) => {
    if (r.type === 'inbound-rtp') out[r.kind] = {packetsReceived: r.packetsReceived, packetsLost: r.packetsLost,
      framesDecoded: r.framesDecoded, nackCount: r.nackCount, pliCount: r.pliCount, codecId: r.codecId,
      jitterBufferDelay: r.jitterBufferDelay, jitterBufferEmittedCount: r.jitterBufferEmittedCount,
      totalSamplesReceived: r.totalSamplesReceived};
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
                           "state": state["state"]}})
        stats = driver.execute_async_script(STATS_JS)
        driver.save_screenshot(str(shots / "whep-chromium.png"))
        result.update(watchedSeconds=round(time.monotonic() - t_connected, 1), frames=state["frames"],
                      width=state["width"], height=state["height"], firstFrameMs=state["firstFrameMs"],
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

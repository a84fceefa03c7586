"""Headless Chromium as a WHIP publisher (RFC 9725) through the gateway's own `/publish` page, driven by Selenium.

A fake camera and microphone (`--use-fake-device-for-media-stream --use-fake-ui-for-media-stream`) feed the page;
`--allow-loopback-in-peer-connection` lets WebRTC use 127.0.0.1. The script clicks Start, waits for the page's
connection state to read "connected", reads `/` in a second tab, publishes for --seconds, clicks Stop (the page
DELETEs its session) and waits for the stream to leave "live".

Prints one JSON line per event: {"state": {...}} on every change of the page's states, {"index": {...}},
{"stats": {...}}, {"deleted": status}, {"ended": state}, and finally {"done": true, ...}. Screenshots go to
--shots/whip-chromium-*.png.
"""

import argparse
import json
import os
import shutil
import sys
import time
import urllib.request
from pathlib import Path

from waiting import eventually

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = "/usr/bin/chromedriver"
FLAGS = (
    "--headless=new", "--no-sandbox", "--window-size=1300,900", "--autoplay-policy=no-user-gesture-required",
    "--use-fake-device-for-media-stream", "--use-fake-ui-for-media-stream", "--allow-loopback-in-peer-connection",
    # The publishing tab goes to the background while the index is read: keep its timers and encoder at full rate.
    "--disable-background-timer-throttling", "--disable-renderer-backgrounding", "--disable-backgrounding-occluded-windows",
)
STATE_JS = "const p = window.sluicePublisher || {}; return {state: p.state, connection: p.connection, ice: p.ice," \
           " gathering: p.gathering, dtls: p.dtls, location: p.location, post: p.postStatus, delete: p.deleteStatus," \
           " error: p.error, bytesSent: p.bytesSent, shown: document.getElementById('state-connection').textContent};"


def emit(obj):
    print(json.dumps(obj), flush=True)


def streams(base: str) -> list:
    with urllib.request.urlopen(base + "/api/streams", timeout=5) as r:
        return json.loads(r.read())


def stream_state(base: str, key: str):
    return next((s["state"] for s in streams(base) if s["key"] == key), None)


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("base", help="http://127.0.0.1:PORT of the gateway")
    parser.add_argument("key")
    parser.add_argument("--seconds", type=float, default=12.0)
    parser.add_argument("--token", default="")
    parser.add_argument("--size", default="640x360")
    parser.add_argument("--shots", default=".")
    parser.add_argument("--connect-timeout", type=float, default=20.0)
    parser.add_argument("--end-timeout", type=float, default=20.0)
    args = parser.parse_args()
    shots = Path(args.shots)
    shots.mkdir(parents=True, exist_ok=True)

    os.environ["SE_AVOID_STATS"] = "true"
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service
    from selenium.webdriver.common.by import By
    from selenium.webdriver.support.ui import Select

    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for flag in FLAGS:
        opts.add_argument(flag)
    opts.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER, log_output=str(shots / "whip-chromium-driver.log")),
                              options=opts)
    last, result = None, {"done": True}

    def page_state():
        """The page's state, emitted whenever it changed (bytes sent aside)."""
        nonlocal last
        s = driver.execute_script(STATE_JS)
        key = {k: v for k, v in s.items() if k != "bytesSent"}
        if key != last:
            emit({"state": s})
            last = key
        return s

    try:
        driver.get(f"{args.base}/publish?key={args.key}")
        if args.token:
            driver.find_element(By.ID, "token").send_keys(args.token)
        Select(driver.find_element(By.ID, "size")).select_by_value(args.size)
        driver.find_element(By.ID, "start").click()
        s = eventually(page_state, args.connect_timeout, until=lambda s: s["connection"] == "connected" or s["error"],
                       period=0.2)
        driver.save_screenshot(str(shots / "whip-chromium-publish.png"))
        result.update(connected=s["connection"] == "connected", shown=s["shown"], error=s["error"])
        if s["connection"] != "connected":
            return 1
        t_connected = time.monotonic()

        publish_tab = driver.current_window_handle
        driver.switch_to.new_window("tab")
        driver.get(args.base + "/")
        row = eventually(lambda: driver.execute_script(
            "const r = document.querySelector(`tr[data-key=\"${arguments[0]}\"]`);"
            " return r && {text: r.textContent, href: r.querySelector('a.stream-link').getAttribute('href')};",
            args.key), 15, until=lambda r: r is not None, period=0.25)
        driver.save_screenshot(str(shots / "whip-chromium-index.png"))
        emit({"index": row})
        driver.close()
        driver.switch_to.window(publish_tab)

        while time.monotonic() - t_connected < args.seconds:
            s = eventually(page_state, 1.0, until=lambda s: s["connection"] != "connected", period=0.2)
            if s["connection"] != "connected":
                break
        emit({"stats": {"bytesSent": s["bytesSent"], "seconds": round(time.monotonic() - t_connected, 1),
                        "video": driver.find_element(By.ID, "stats-video").text,
                        "audio": driver.find_element(By.ID, "stats-audio").text}})
        result["stillConnected"] = s["connection"] == "connected"
        result["connectedSeconds"] = round(time.monotonic() - t_connected, 1)
        result["bytesSent"] = s["bytesSent"]

        driver.find_element(By.ID, "stop").click()
        s = eventually(page_state, 10, until=lambda s: s["delete"] is not None or s["error"], period=0.2)
        driver.save_screenshot(str(shots / "whip-chromium-stopped.png"))
        emit({"deleted": s["delete"]})
        result.update(deleted=s["delete"], finalState=s["state"], error=s["error"])

        state = eventually(lambda: stream_state(args.base, args.key), args.end_timeout, until=lambda st: st != "live",
                           period=0.25)
        emit({"ended": state})
        result["ended"] = state
        return 0 if result["stillConnected"] and s["delete"] == 200 else 1
    finally:
        try:
            (shots / "whip-chromium-console.log").write_text("\n".join(str(e) for e in driver.get_log("browser")))
        except Exception:  # noqa: BLE001 - the console log is an artifact, not a result
            pass
        driver.quit()
        emit(result)


if __name__ == "__main__":
    sys.exit(main())

"""Counts stock hls.js's start-up append race (hlsjs.APPEND_RACE) over many joins of one live stream, and logs what its
buffer queues did around each one (docs/LLHLS.md). A diagnostic, not a test: it serves a logging copy of hls.js (the
`make hlsjs` chunk with a log call in each queue step) on the interop matrix's page, and keeps it out of the repository.

    python3 Tests/e2e/hlsjs_race_probe.py OUT --minutes 10 [--busy] [--others]

`--busy` spins one core and `--others` keeps a second hls.js and a Chromium-native player on the page, the load under
which the race showed (4 of 105 and 7 of 108 joins; none of 87 alone). Each join plays 5 s; OUT/race-N.json holds the
queue log of each join that hit it, OUT/results.json every join's errors and stalls.
"""
from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import shutil
import sys
import time
from pathlib import Path

import requests

import hlsjs
from browser import PageServer, headless_chromium
from procs import Gateway, Publisher, ffmpeg_cmd
from waiting import eventually_in_page

HERE = Path(__file__).resolve().parent
LOG = "window.__ql&&window.__ql(this.__id??this.operationQueue?.__id,"
# (anchor in the minified hls.js 1.6.15 chunk, what replaces it): each queue step logs [queue id, step, buffer, op...].
PATCHES = [
    ("go=class{constructor(e){this.tracks=void 0,",
     "go=class{constructor(e){this.__id=window.__qid=(window.__qid||0)+1,this.tracks=void 0,"),
    ("shiftAndExecuteNext(e){this.queues!==null&&(this.queues[e].shift(),this.executeNext(e))}",
     "shiftAndExecuteNext(e){this.queues!==null&&(" + LOG + "\"shift\",e,this.queues[e][0]?.label,"
     "this.tracks[e]?.buffer?.updating),this.queues[e].shift(),this.executeNext(e))}"),
    ("let t=this.queues[e];if(t.length){let n=t[0];try{n.execute()}",
     "let t=this.queues[e];if(t.length){let n=t[0];try{" + LOG + "\"exec\",e,n.label,this.tracks[e]?.buffer?.updating),"
     "n.execute()}"),
    ("onSBUpdateEnd(e){", "onSBUpdateEnd(e){" + LOG + "\"updateend\",e,this.currentOp(e)?.label);"),
    ("stepOperationQueue(e){", "stepOperationQueue(e){" + LOG + "\"step\",e.join(\"+\"));"),
    ("append(e,t,n){if(this.queues===null||this.tracks===null)return;let r=this.queues[t];",
     "append(e,t,n){if(this.queues===null||this.tracks===null)return;let r=this.queues[t];" + LOG +
     "\"push\",t,e.label,r.length,!!n,this.tracks[t]?.buffer?.updating);"),
    ("label:`append-${l}`", "label:`append-${l} ${g}.${f?f.index:\"-\"}`"),
]
PAGE = [
    ("window.players = {};",
     "window.players = {}; window.__q = []; window.hlses = {};\n"
     "window.__ql = (...a) => { window.__q.push([Math.round(performance.now() * 10) / 10, ...a]);"
     " if (window.__q.length > 4000) window.__q.shift(); };\n"
     "window.stopHls = (name) => { const h = window.hlses[name]; if (h) { h.destroy(); delete window.hlses[name]; }"
     " const p = window.players[name]; if (p) p.video().remove(); };"),
    ("const hls = new Hls({lowLatencyMode: true, ...(window.hlsDebug ? {debug: true} : {})});",
     "const hls = new Hls({lowLatencyMode: true}); window.hlses[name] = hls;"),
]


def patched(text: str, patches: list[tuple[str, str]], what: str) -> str:
    for anchor, replacement in patches:
        if text.count(anchor) != 1:
            sys.exit(f"{what}: {anchor[:60]!r} found {text.count(anchor)} times (another hls.js version?)")
        text = text.replace(anchor, replacement)
    return text


def spin() -> None:
    while True:
        pass


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("out", type=Path)
    ap.add_argument("--minutes", type=float, default=10)
    ap.add_argument("--busy", action="store_true", help="spin one core meanwhile")
    ap.add_argument("--others", action="store_true", help="keep another hls.js and a native player playing")
    a = ap.parse_args()
    a.out.mkdir(parents=True, exist_ok=True)
    (a.out / "hls-chunk.js").write_text(patched(hlsjs.extract().read_text(), PATCHES, "hls.js"))
    (a.out / "index.html").write_text(patched((HERE / "interop_page.html").read_text(), PAGE, "page"))
    pages = PageServer(a.out)
    gw = Gateway(a.out).start()
    base = f"http://127.0.0.1:{gw.http_port}"
    (a.out / "sluice-player.js").write_bytes(requests.get(f"{base}/pages/sluice-player.js", timeout=10).content)
    pub = Publisher(ffmpeg_cmd(gw.rtmp_url("probe"), a.minutes * 60 + 30, size="640x360"), a.out / "publisher.log")
    busy = multiprocessing.Process(target=spin, daemon=True) if a.busy else None
    driver = headless_chromium(a.out)
    results = []
    try:
        driver.get(pages.url("index.html"))
        eventually_in_page(driver, "return window.ready === true", bool, 20, period=0.1)
        src = gw.hls_url("probe")
        time.sleep(4)
        if a.others:
            native = src.replace("127.0.0.1", "localhost")
            driver.execute_script(f"startHls('other', {src!r}); startNative('native', {native!r})")
        if busy:
            busy.start()
        end = time.monotonic() + a.minutes * 60
        while time.monotonic() < end:
            name = f"join{len(results)}"
            time.sleep(random.uniform(0, 1))
            driver.execute_script(f"window.__q = []; startHls({name!r}, {src!r})")
            time.sleep(5)
            p = driver.execute_script("return window.report()")[name]
            log = driver.execute_script("return window.__q")
            driver.execute_script(f"stopHls({name!r})")
            raced = any(hlsjs.is_append_race(e) for e in p.get("firstErrors") or {})
            results.append({"join": name, "raced": raced, "errors": p["errors"], "stalls": p["stalls"],
                            "frames": p["frames"], "fatal": p["fatal"]})
            if raced:
                (a.out / f"race-{len(results) - 1}.json").write_text(json.dumps({"player": p, "queues": log}))
            print(len(results) - 1, "RACE" if raced else "-", p["errors"][:3], p["stalls"], p["frames"], flush=True)
    finally:
        if busy and busy.is_alive():
            busy.terminate()
        driver.quit()
        pub.stop()
        gw.stop()
        pages.close()
        (a.out / "results.json").write_text(json.dumps(results, indent=1))
    raced = sum(r["raced"] for r in results)
    print(f"{raced} of {len(results)} joins hit hls.js's append race; "
          f"{sum(bool(r['stalls']) for r in results)} stalled; {sum(bool(r['fatal']) for r in results)} fatal")


if __name__ == "__main__":
    main()

"""Overload (issue 16): 1920x1080 at 60 fps, 2 s GOP, into the default ladder on this machine's 2 cores.

The `ffmpeg` CLI publishes testsrc2 (x264 ultrafast, `-g 120`) on the same cores as the gateway: the encode runs
live as in the issue, but to null, while the same stream encoded beforehand is sent with `-re -c copy`, so a busy
machine cannot lower the published frame rate (and with it the overload). The gateway decodes 1080p60 once and
encodes 720p60, 480p60 and 360p60 below the passthrough, with one of the two cores (GATEWAY_CPUS, every thread it
starts): on both cores of an idle machine the ladder nearly fits (real-time factors 0.8-0.85 per rung), so whether
it was overloaded depended on what else ran (two of the last five runs skipped for want of overload); on one core it
never fits. That does not fit: the ladder must shed load (a faster preset for the rung that falls behind, then
the 720p rung leaves the multivariant) within 10 s, and say so in the log, `/metrics` and `sluice stats`. Then, over
a window in which the ladder takes no step: the passthrough's package p99 (from `/metrics` bucket deltas, which have
a 400 ms bound) is <= 400 ms, no frame of a listed rendition is dropped (every `sluice_frames_dropped_total` series
of those renditions stays put), and every listed rung decodes (ffprobe) at its size with exactly the source's frame
count over the window's segments. A second test pins hls.js to the 720p rung while it is shed.

A shared machine only makes the overload worse, which is what shedding is for; a window in which the ladder still
takes a step (or its listing changes) is discarded and measured again, up to WINDOW_TRIES times. One thing the
gateway cannot help: a publisher that cannot send 55 fps removes the overload the test is about; the test then skips
and says so (the published fps is the gateway's own measurement).
"""
from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import time
from datetime import datetime
from pathlib import Path
from urllib.parse import urljoin

import pytest
import requests

from procs import ARTIFACTS, REPO, SLUICE, Gateway, Publisher
from waiting import eventually
from test_hlsjs_ladder import PAGE, STATE_JS, _extract_hlsjs, driver, page_server  # noqa: F401 - fixtures

KEY = "e2e-overload"
SHED_WITHIN_S = 10.0
PACKAGE_P99_S = 0.4
WINDOW_S = 8.0
WINDOW_TRIES = 6
# Steps come 2 s apart while the ladder stays behind (transcode.shed.patience_s): 3 s without one means it settled.
QUIET_S = 3.0
PUBLISH_S = 100
# CPU load beside the gateway: the publisher's own live encode (as in the issue). The overload itself comes from
# GATEWAY_CPUS: with both cores the ladder alone nearly fits 1080p60 and only other tenants' load made it shed.
LOADS = 1
GATEWAY_CPUS = {0}
STEP = re.compile(r"ladder (sheds load|load fell)")


def said(line: str, rung: str, step: str) -> bool:
    """A shed step's log line: the step in its message, the rung in its metadata (`rung=720p`)."""
    return step in line and f"rung={rung} " in line


def source_file() -> Path:
    """20 s of the gaming default, encoded once (not in real time): 1080p60 testsrc2, x264 ultrafast, 2 s GOP, AAC."""
    path = ARTIFACTS / "overload-1080p60-ultrafast-g120.mp4"
    if not path.exists():
        tmp = path.with_suffix(".tmp.mp4")
        subprocess.run(["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", "-y",
                        "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=60",
                        "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000", "-t", "20",
                        "-c:v", "libx264", "-preset", "ultrafast", "-g", "120", "-keyint_min", "120",
                        "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", str(tmp)], check=True, timeout=300)
        tmp.rename(path)
    return path


def publisher_cmd(url: str, seconds: float) -> list[str]:
    """The file at its own pace, looped, copied: 60 fps reach the gateway however busy the machine is."""
    return ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "warning", "-re", "-stream_loop", "-1",
            "-i", str(source_file()), "-t", str(seconds), "-c", "copy", "-f", "flv", url]


def encoder_load_cmd(seconds: float, tenant: bool = False) -> list[str]:
    """The publisher's own live encode (the issue's ffmpeg encoded 1080p60 ultrafast on the same 2 cores), to null: its
    CPU cost stays on the machine, while falling behind under load no longer lowers the frame rate published. With
    `tenant`, another tenant's job instead: the same encode as fast as it can on 4 x264 threads (the scheduler shares
    the cores by thread, and the gateway runs about 8)."""
    realtime = [] if tenant else ["-re"]
    threads = ["-threads", "4"] if tenant else []
    return ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "error", *realtime,
            "-f", "lavfi", "-i", "testsrc2=size=1920x1080:rate=60", "-t", str(seconds),
            "-c:v", "libx264", "-preset", "ultrafast", "-g", "120", "-pix_fmt", "yuv420p", *threads, "-f", "null", "-"]


def ingest_fps(gw: Gateway) -> float:
    """Source video frames per second the gateway received over the last 5 s."""
    for s in requests.get(f"http://127.0.0.1:{gw.http_port}/api/streams", timeout=10).json():
        if s["key"] == KEY:
            return next((r["fps"] for r in s["renditions"] if r["name"] == "video"), 0.0)
    return 0.0


def keeps_up(gw: Gateway) -> bool:
    """Every video rendition publishes at the source's rate (last 5 s) and none dropped a frame."""
    for s in requests.get(f"http://127.0.0.1:{gw.http_port}/api/streams", timeout=10).json():
        if s["key"] == KEY:
            video = [r for r in s["renditions"] if r["kind"] == "video"]
            return len(video) == 4 and all(r["fps"] >= 55 and r["framesDropped"] == 0 for r in video)
    return False


def renditions(gw: Gateway) -> dict:
    """Rendition -> (fps over the last 5 s, frames dropped by reader), for failure messages."""
    for s in requests.get(f"http://127.0.0.1:{gw.http_port}/api/streams", timeout=10).json():
        if s["key"] == KEY:
            return {r["name"]: (r["fps"], r["framesDroppedBy"]) for r in s["renditions"]}
    return {}


def metrics(gw: Gateway) -> str:
    return requests.get(f"http://127.0.0.1:{gw.http_port}/metrics", timeout=10).text


def series(text: str, name: str, **labels: str) -> dict[tuple, float]:
    """Samples of metric `name` whose labels include `labels`, keyed by their full label set."""
    out: dict[tuple, float] = {}
    for line in text.splitlines():
        if not line.startswith(name + "{"):
            continue
        head, _, value = line.rpartition(" ")
        got = dict(re.findall(r'(\w+)="([^"]*)"', head))
        if all(got.get(k) == v for k, v in labels.items()):
            out[tuple(sorted(got.items()))] = float(value)
    return out


def package_fraction_within(m0: str, m1: str, bound: str) -> tuple[float, int]:
    """Share of the passthrough's package samples in the window at or under `le=bound`, and how many there were."""
    def bucket(text, le):
        s = series(text, "sluice_hop_latency_seconds_bucket", hop="package", stream=KEY, rendition="video", le=le)
        return sum(s.values())
    total = bucket(m1, "+Inf") - bucket(m0, "+Inf")
    within = bucket(m1, bound) - bucket(m0, bound)
    return (within / total if total else 0.0), int(total)


def drops(text: str, renditions: set[str]) -> dict[tuple, float]:
    return {k: v for k, v in series(text, "sluice_frames_dropped_total", stream=KEY).items()
            if dict(k).get("rendition") in renditions}


def variants(text: str) -> dict[str, tuple[int, int]]:
    """Video variant URI -> RESOLUTION."""
    out = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        if line.startswith("#EXT-X-STREAM-INF"):
            w, h = re.search(r"RESOLUTION=(\d+)x(\d+)", line).groups()
            out[lines[i + 1].strip()] = (int(w), int(h))
    return out


def segments(url: str) -> dict[int, tuple[str, str, float]]:
    """MSN -> (init URL, segment URL, PDT as epoch seconds) of complete, non-GAP segments."""
    text = requests.get(url, timeout=10).text
    msn = int(re.search(r"#EXT-X-MEDIA-SEQUENCE:(\d+)", text).group(1))
    out, init, pdt, gap = {}, None, None, False
    for line in text.splitlines():
        if line.startswith("#EXT-X-MAP:"):
            init = urljoin(url, re.search(r'URI="([^"]+)"', line).group(1))
        elif line.startswith("#EXT-X-PROGRAM-DATE-TIME:"):
            pdt = datetime.fromisoformat(line.split(":", 1)[1].replace("Z", "+00:00")).timestamp()
        elif line.startswith("#EXT-X-GAP"):
            gap = True
        elif line.startswith("#EXTINF:"):
            dur = float(line[8:].split(",")[0])
        elif line and not line.startswith("#"):
            if not gap:
                out[msn] = (init, urljoin(url, line), pdt)
            pdt = pdt + dur if pdt is not None else None
            msn, gap = msn + 1, False
    return out


def decode(parts: list[tuple[str, str, float]], path: Path) -> tuple[list[dict], str]:
    """ffprobe every frame of init + segments (one init per run; the ladder keeps one init while it sheds)."""
    data = requests.get(parts[0][0], timeout=10).content
    for _, seg, _ in parts:
        data += requests.get(seg, timeout=10).content
    path.write_bytes(data)
    r = subprocess.run(["ffprobe", "-v", "error", "-select_streams", "v:0", "-show_entries", "frame=width,height",
                        "-of", "csv=p=0", str(path)], capture_output=True, text=True, timeout=120)
    frames = [dict(zip(("width", "height"), map(int, ln.split(",")[:2]))) for ln in r.stdout.split() if ln]
    return frames, (r.stderr or "").strip()


def test_overload_sheds_rungs_and_keeps_the_passthrough_on_time(workdir):
    source_file()
    # Slate off: the reconnect below checks what the returning publisher's ladder inherits; with the slate, the slate's
    # own ladder session inherits first and logs it before the publisher is back.
    gw = Gateway(workdir, cpus=GATEWAY_CPUS, env={"SLUICE_INGEST_SLATE": "false"}).start()
    pub = load = None
    try:
        load = [Publisher(encoder_load_cmd(PUBLISH_S, tenant=i > 0), workdir / f"load-{i}.log") for i in range(LOADS)]
        pub = Publisher(publisher_cmd(gw.rtmp_url(KEY), PUBLISH_S), workdir / "publisher.log")
        seen = eventually(lambda: "RTMP publish started" in gw.log() and time.monotonic(), 15)
        assert seen, f"the gateway never saw the publisher:\n{gw.log()[-2000:]}\n{pub.log()[-800:]}"
        shed = eventually(lambda: "ladder sheds load" in gw.log() and time.monotonic(), SHED_WITHIN_S + 1)
        if not shed and ingest_fps(gw) < 55:
            pytest.skip(f"the machine is too busy for the publisher: {ingest_fps(gw)} fps of 60 reached the gateway")
        if not shed and keeps_up(gw):
            pytest.skip("no overload to shed: every rung kept the full frame rate and dropped nothing")
        assert shed and shed - seen <= SHED_WITHIN_S, (
            f"no load shed within {SHED_WITHIN_S} s of the publish; renditions (fps, drops): {renditions(gw)}\n"
            f"{gw.log()[-3000:]}")
        first = next(ln for ln in gw.log().splitlines() if "ladder sheds load" in ln)
        assert re.search(r"rung=(720p|480p|360p) ", first) and "reason" in first and "behind" in first, first
        # While the step is in force (it is undone after 10 s of calm at the earliest), `sluice stats` names it.
        stats = subprocess.run([str(SLUICE), "stats", f"http://127.0.0.1:{gw.http_port}", "--once"],
                               capture_output=True, text=True, timeout=30).stdout
        assert "load shed" in stats, stats

        base = f"http://127.0.0.1:{gw.http_port}/live/{KEY}/"
        window = None
        for _ in range(WINDOW_TRIES):
            # Settled: no step for QUIET_S.
            def quiet():
                n = len(STEP.findall(gw.log()))
                time.sleep(QUIET_S)
                return n == len(STEP.findall(gw.log()))
            assert eventually(quiet, 30, period=0), f"the ladder never settled:\n{gw.log()[-3000:]}"
            n0, m0 = len(STEP.findall(gw.log())), metrics(gw)
            mv0, w0 = requests.get(base + "index.m3u8", timeout=10).text, time.time()
            time.sleep(WINDOW_S)
            n1, m1 = len(STEP.findall(gw.log())), metrics(gw)
            mv1, w1 = requests.get(base + "index.m3u8", timeout=10).text, time.time()
            if n1 == n0 and variants(mv0) == variants(mv1):
                window = (m0, m1, mv1, w0, w1)
                break
        assert window, f"the ladder kept changing in every {WINDOW_S} s window:\n{gw.log()[-3000:]}"
        m0, m1, mv, w0, w1 = window
        listed = variants(mv)
        names = {u.removesuffix(".m3u8") for u in listed}
        steps = [ln for ln in gw.log().splitlines() if STEP.search(ln)]

        # The multivariant lost at least one rung, or every rung encodes faster; the log said which and why.
        assert "video.m3u8" in listed, mv
        assert len(listed) < 4 or any("superfast" in s for s in steps), f"{mv}\n" + "\n".join(steps)
        for gone in {"720p", "480p", "360p"} - names:
            assert any(said(s, gone, "is no longer encoded and leaves the multivariant") for s in steps), steps
        assert series(m1, "sluice_ladder_shed_steps_total", stream=KEY), "no shed step in /metrics"

        share, samples = package_fraction_within(m0, m1, "0.4")
        assert samples > WINDOW_S * 30, f"only {samples} package samples of the passthrough in the window"
        assert share >= 0.99, (f"passthrough package p99 over {PACKAGE_P99_S} s: only {share:.3%} of {samples} "
                               f"samples within it\n" + "\n".join(steps))
        d0, d1 = drops(m0, names), drops(m1, names)
        grown = {dict(k)["rendition"] + "/" + dict(k)["reader"]: v - d0.get(k, 0) for k, v in d1.items()
                 if v > d0.get(k, 0)}
        assert not grown, f"listed renditions dropped frames in the window: {grown}\n" + "\n".join(steps)

        # Each listed rung decodes at its size with the source's frame count over the window's segments.
        segs = {name: segments(base + f"{name}.m3u8") for name in names}
        common = sorted(set.intersection(*(set(s) for s in segs.values())))
        inside = [m for m in common if segs["video"][m][2] is not None and w0 - 1 <= segs["video"][m][2] <= w1 - 2]
        assert len(inside) >= 2, f"only MSNs {inside} of {common} fall in the window"
        source, err = decode([segs["video"][m] for m in inside], workdir / "video.mp4")
        assert source and not err, err
        for name in sorted(names - {"video"}):
            frames, err = decode([segs[name][m] for m in inside], workdir / f"{name}.mp4")
            assert not err, f"{name}: {err}"
            assert len(frames) == len(source), f"{name}: {len(frames)} frames, source {len(source)} over MSNs {inside}"
            size = {(f["width"], f["height"]) for f in frames}
            assert size == {listed[f"{name}.m3u8"]} and listed[f"{name}.m3u8"][1] == int(name[:-1]), (name, size)
        # The figures, for docs/BENCHMARKS.md and the curious.
        (workdir / "summary.json").write_text(json.dumps({
            "shed_after_publish_s": round(shed - seen, 2), "listed": sorted(listed), "window_s": round(w1 - w0, 1),
            "package_samples": samples, "package_within_400ms": round(share, 5), "msns": inside,
            "frames": len(source), "steps": steps}, indent=1))

        # The publisher reconnects into the same overload: the new session's ladder starts with the steps in force,
        # before its first picture, instead of overloading the machine again for the shedder's patience.
        pub.stop()
        assert eventually(lambda: "RTMP publish ended" in gw.log(), 10), gw.log()[-2000:]
        pub = Publisher(publisher_cmd(gw.rtmp_url(KEY), 15), workdir / "publisher2.log")
        again = eventually(lambda: gw.log().count("RTMP publish started") >= 2, 15)
        assert again, f"the second session never started\n{gw.log()[-2000:]}"
        kept = eventually(lambda: "kept from the stream's previous session" in gw.log(), 10)
        assert kept, f"the second session's ladder did not start shed\n{gw.log()[-3000:]}"
        first, second = gw.log().split("RTMP publish started")[1:3]
        inherited = [ln for ln in second.splitlines() if "kept from the stream's previous session" in ln]
        # What the first session had dropped when it ended: a rung the shedder tried again after 20 s of calm in the
        # seconds between the check above and the reconnect is rightly not inherited (seen once, 2026-11-26 18:15).
        dropped = set()
        for ln in first.splitlines():
            for rung in ("720p", "480p", "360p"):
                if said(ln, rung, "is no longer encoded"):
                    dropped.add(rung)
                elif said(ln, rung, "is encoded again"):
                    dropped.discard(rung)
        for gone in dropped:
            assert any(said(ln, gone, "is no longer encoded") for ln in inherited), inherited
    finally:
        for p in [pub] + (load or []):
            if p is not None and p.proc.poll() is None:
                p.stop()
        gw.stop()


# Opt-in: in 2026-11-25's runs it passed 4 of 6 times; the two failures were hls.js stalling for good on the level it moved
# to (a lagging rung of the overloaded ladder), an open problem of issue 16, not a flake to retry in CI. With the gateway
# on one core (2026-11-26, load average 7-13 from other builds) it passed 4 of 5.
@pytest.mark.skipif(os.environ.get("SLUICE_E2E_OVERLOAD_HLSJS") != "1",
                    reason="opt-in (SLUICE_E2E_OVERLOAD_HLSJS=1): hls.js may stall on the lagging level it moves to")
def test_hlsjs_on_a_shed_rung_switches_level_without_a_fatal_error(workdir, page_server, driver):
    """hls.js pinned to the 720p rung when the ladder sheds it: the rung's playlist answers 404, hls.js (which does
    not retry a 4xx level load) moves to another level and keeps playing, with no fatal error. Patience 6 s here, so
    the multivariant still lists 720p when hls.js loads it."""
    chunk = _extract_hlsjs()
    shutil.copyfile(chunk, workdir / "hls-chunk.js")
    config = workdir / "sluice.yaml"
    config.write_text((REPO / "Config" / "sluice.yaml").read_text().replace("patience_s: 2", "patience_s: 6"))
    source_file()
    gw = Gateway(workdir, config=config, cpus=GATEWAY_CPUS).start()
    pub = load = None
    try:
        load = [Publisher(encoder_load_cmd(PUBLISH_S, tenant=i > 0), workdir / f"load-{i}.log") for i in range(LOADS)]
        pub = Publisher(publisher_cmd(gw.rtmp_url(KEY), PUBLISH_S), workdir / "publisher.log")
        url = gw.hls_url(KEY)
        def whole_ladder():
            try:
                text = requests.get(url, timeout=12).text
            except requests.RequestException:
                return None
            return text if text.count("#EXT-X-STREAM-INF") == 4 else None
        listed = eventually(whole_ladder, 15, period=0.2)
        assert listed and "720p.m3u8" in listed, f"the ladder was never listed whole\n{gw.log()[-2000:]}"
        (workdir / "index.html").write_text(PAGE.replace("{src}", url))
        driver.get(f"http://127.0.0.1:{page_server.server_address[1]}/index.html")
        state = lambda: driver.execute_script(STATE_JS)  # noqa: E731
        levels = eventually(lambda: state()["log"]["levels"], 10)
        assert levels, f"hls.js never parsed the manifest: {state()['log']}"
        pinned = next(i for i, lv in enumerate(levels) if lv["height"] == 720)
        driver.execute_script(f"window.hls.currentLevel = {pinned};")
        on720 = eventually(lambda: (lambda s: s["h"] == 720 and s["t"] > 0.5 and s)(state()), 20, period=0.25)
        assert on720, f"hls.js did not play the 720p level: {state()}"
        dropped_720p = lambda: any(said(ln, "720p", "is no longer encoded") for ln in gw.log().splitlines())  # noqa: E731
        shed = eventually(lambda: dropped_720p() and time.monotonic(), 45)
        if not shed and ingest_fps(gw) < 55:
            pytest.skip(f"the machine is too busy for the publisher: {ingest_fps(gw)} fps of 60 reached the gateway")
        if not shed and keeps_up(gw):
            pytest.skip("no overload to shed: every rung kept the full frame rate and dropped nothing")
        assert shed, f"the 720p rung was never shed\n{gw.log()[-3000:]}"
        t_shed = state()["t"]
        moved = eventually(lambda: (lambda s: s["level"] != pinned and s["h"] not in (0, 720) and s)(state()),
                           20, period=0.25)
        s = state()
        errors = s["log"]["errors"]
        (workdir / "hlsjs.json").write_text(json.dumps({"levels": levels, "errors": errors,
                                                        "switched": s["log"]["switched"]}, indent=1))
        assert not [e for e in errors if e[3]] and not s["log"]["fatal"], f"fatal hls.js error: {errors}"
        assert moved, f"hls.js stayed on the shed 720p level: {s}"
        # The shed rung's playlist answers 404 while it is out (hls.js may also have left it on a 503 before).
        if not any(said(ln, "720p", "is encoded again") for ln in gw.log().splitlines()):
            assert requests.get(url.replace("index.m3u8", "720p.m3u8"), timeout=12).status_code == 404
        advanced = eventually(lambda: (lambda s: s["t"] > t_shed + 3 and s)(state()), 15, period=0.25)
        assert advanced, f"playback stopped after the switch: {state()}"
    finally:
        for p in [pub] + (load or []):
            if p is not None and p.proc.poll() is None:
                p.stop()
        gw.stop()

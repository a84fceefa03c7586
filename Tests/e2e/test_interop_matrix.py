"""The interop matrix: every input a streamer uses x every output a viewer uses, with the default config (fast start on)
and with the ladder off (`transcode.enabled: false`), recording on. A new input or output is one line below.

Each case publishes once and watches it every way at once, as one streamer's evening would: stock hls.js (only
`lowLatencyMode: true`, on a page of another origin, no retry) from publish and joining 2 s in; Chromium's own HLS in
a plain `<video src>` opened 1 s and 5 s in; a WHEP viewer (aiortc) 3 s in; every playlist answer checked by the
validator while it runs; and after the publisher stops, the recording played end to end by FFmpeg's HLS demuxer from
the `/vod/{key}/{id}/index.m3u8` the API gives. Inputs that are listed late by nature (video 10 s after audio) start
the players when the stream is listed: a stream must be playable in any player from the moment it is listed.
"""
from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional
from urllib.parse import urljoin

import pytest
import requests

import hlsjs
import hlsvalidate as hv
from browser import PageServer, headless_chromium, unavailable as no_browser
import obspeer
from procs import ARTIFACTS, Gateway, Publisher, ffmpeg_cmd, format_violations
from waiting import eventually, eventually_in_page
from srtpeers import srt_ffmpeg_cmd

HERE = Path(__file__).resolve().parent
SIZE = "640x360"
# Publish long enough for the player joining 5 s in to play a few seconds before the stream ends.
SECONDS = 17


def _ffmpeg9() -> Optional[str]:
    try:
        import imageio_ffmpeg
        return imageio_ffmpeg.get_ffmpeg_exe()
    except Exception:  # noqa: BLE001 - any failure means FFmpeg 9 is unavailable
        return None


def _lavfi(seconds: float, tone: int = 440) -> list[str]:
    return ["-re", "-f", "lavfi", "-i", f"testsrc2=size={SIZE}:rate=30",
            "-f", "lavfi", "-i", f"sine=frequency={tone}:sample_rate=48000", "-t", str(seconds)]


@dataclass
class Input:
    """A publisher: how to start it on a gateway, and what it cannot be watched with (output name -> why)."""
    start: Callable[[Gateway, str, float, Path], object]
    seconds: float = SECONDS
    # Media sent ahead of real time at the start (the input whose audio begins 10 s before its video).
    lead: float = 0
    # Seconds of real time before the stream can be listed (a track that comes late); the players watch `seconds`
    # after that.
    late: float = 0
    # "publish": players open as the publisher starts; "listed": once the multivariant answers (late by nature).
    players_from: str = "publish"
    unavailable: Callable[[], Optional[str]] = lambda: None
    not_watchable: dict[str, dict[str, str]] = field(default_factory=dict)
    # config -> {validator rule or "stall:<output>": why this input gives it up on purpose}.
    excused: dict[str, dict[str, str]] = field(default_factory=dict)
    # config -> {output: why it fails today}: strict xfail, so the cell turns red the day it passes.
    known_failures: dict[str, dict[str, str]] = field(default_factory=dict)


def _process(cmd: list[str]):
    return lambda gw, key, seconds, wd: Publisher(cmd(gw, key, seconds), wd / "publisher.log")


def _tracks_apart(gw: Gateway, key: str, seconds: float) -> list[str]:
    # Video timestamps start 10 s after the audio's (a wall clock in the video PTS); FFmpeg's interleaving then sends
    # ~10 s of audio alone before the video.
    return ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "warning", *_lavfi(seconds),
            "-vf", "setpts=PTS+10/TB", "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-g", "30",
            "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-f", "flv", gw.rtmp_url(key)]


def _one_track_late(late: str, by: float):
    """Both tracks paced in real time, `late` ("video" or "audio") starting `by` seconds after the other; packets are
    written as they come (no 10 s interleaving buffer), so the gateway sees one track alone at first."""
    def cmd(gw: Gateway, key: str, seconds: float) -> list[str]:
        video = ["-re", *(["-itsoffset", str(by)] if late == "video" else []), "-f", "lavfi",
                 "-i", f"testsrc2=size={SIZE}:rate=30"]
        audio = ["-re", *(["-itsoffset", str(by)] if late == "audio" else []), "-f", "lavfi",
                 "-i", "sine=frequency=440:sample_rate=48000"]
        return ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "warning", *video, *audio, "-t", str(seconds),
                "-map", "0:v", "-map", "1:a", "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency",
                "-g", "30", "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-max_interleave_delta", "100000",
                "-f", "flv", gw.rtmp_url(key)]
    return cmd


def _timestamps_jump(mode: str, back: float):
    """RTMP from a live FFmpeg encode whose timestamps jump `back` s back 10 s in (`rtmp_jump_relay.py`): "restart" is a
    second encoder taking over the same connection on both tracks, "audio" the audio track alone."""
    def cmd(gw: Gateway, key: str, seconds: float) -> list[str]:
        return [sys.executable, str(HERE / "rtmp_jump_relay.py"), gw.rtmp_url(key), "--seconds", str(seconds),
                "--mode", mode, "--at", "10", "--back", str(back)]
    return cmd


def _whip(gw: Gateway, key: str, seconds: float) -> list[str]:
    return [_ffmpeg9(), "-hide_banner", "-loglevel", "warning", *_lavfi(seconds, 550),
            "-c:v", "libx264", "-profile:v", "baseline", "-preset", "ultrafast", "-tune", "zerolatency",
            "-g", "30", "-bf", "0", "-c:a", "libopus", "-ar", "48000", "-ac", "2", "-f", "whip",
            f"http://127.0.0.1:{gw.http_port}/whip/{key}"]


def _hevc(gw: Gateway, key: str, seconds: float) -> list[str]:
    return [_ffmpeg9(), "-hide_banner", "-nostdin", "-loglevel", "error", *_lavfi(seconds, 330),
            "-map", "0:v", "-map", "1:a", "-c:v", "libx265", "-preset", "ultrafast",
            "-x265-params", "bframes=2:keyint=30:min-keyint=30:scenecut=0:open-gop=0:log-level=error",
            "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-f", "flv", gw.rtmp_url(key)]


def _obs(gw: Gateway, key: str, seconds: float, wd: Path):
    return obspeer.OBSPublisher(wd, f"rtmp://127.0.0.1:{gw.rtmp_port}/live", key, size=SIZE)


NO_FFMPEG9 = (lambda: None if _ffmpeg9() else "imageio-ffmpeg (FFmpeg 9) is not installed")
HEVC_IN_CHROMIUM = "Chromium plays no HEVC (neither MSE nor its own HLS); without the ladder there is no H.264 to play"
LONG_GOP_PASSTHROUGH = ("without a ladder a 250-frame GOP is cut every 2 s between keyframes, so the multivariant "
                        "does not claim EXT-X-INDEPENDENT-SEGMENTS (docs/PUBLISH.md)")
LONG_GOP_PASSTHROUGH_JOIN = ("a viewer joining a passthrough whose keyframes are 8.3 s apart waits for the next one; "
                             "in one run of four hls.js showed nothing within the 15 s watched")
LONG_GOP_JOIN = ("seen once in four runs and not yet understood: a viewer joining 2 s in waited 0.1 s at the start of "
                 "its first segment on the 2 s grid")
NATIVE_TD2 = ("Chromium native opened 1 s in with 2 s segments (TARGETDURATION 2): it usually quits at play start "
              "without reloading (it reloads at most once per TARGETDURATION), so no held reload can save it; when the "
              "first segment is listed before it asks, it plays (seen 2026-11-28 16:04 UTC), so this one is not strict")
# Known failures that depend on when a player asks: an unexpected pass is not news.
TIMING_DEPENDENT = {NATIVE_TD2}
HEVC_NOT_WHEP = "WHEP sends H.264: without the ladder an HEVC source has no H.264 rendition"

INPUTS: dict[str, Input] = {
    "rtmp-readme": Input(_process(lambda gw, k, s: ffmpeg_cmd(gw.rtmp_url(k), s, size=SIZE))),
    "rtmp-obs-defaults": Input(_process(lambda gw, k, s: ffmpeg_cmd(gw.rtmp_url(k), s, size=SIZE, bframes=2, gop=250)),
                               excused={"passthrough": {"M9": LONG_GOP_PASSTHROUGH,
                                                        "stall:hlsjs-from-publish": LONG_GOP_PASSTHROUGH},
                                        "fast-start": {"stall:hlsjs-join-2s": LONG_GOP_JOIN}},
                               not_watchable={"passthrough": {"hlsjs-join-2s": LONG_GOP_PASSTHROUGH_JOIN}},
                               known_failures={c: {"native-from-1s": NATIVE_TD2} for c in ("fast-start", "passthrough")}),
    "rtmp-tracks-10s-apart": Input(_process(_tracks_apart), lead=10, players_from="listed"),
    # Bad input: video only after 10 s of audio, in real time; audio 3 s after the video.
    "rtmp-video-after-10s": Input(_process(_one_track_late("video", 10)), late=10, players_from="listed"),
    "rtmp-audio-after-3s": Input(_process(_one_track_late("audio", 3))),
    # Bad input: timestamps jump back mid-stream (an encoder restarted on the same connection; one track alone).
    "rtmp-timestamps-jump-back": Input(_process(_timestamps_jump("restart", 20))),
    "rtmp-audio-jumps-back": Input(_process(_timestamps_jump("audio", 1))),
    "srt": Input(_process(lambda gw, k, s: srt_ffmpeg_cmd(gw.srt_url(f"#!::r=live/{k},m=publish", latency="120000"),
                                                          s, size=SIZE))),
    "whip-ffmpeg9": Input(_process(_whip), unavailable=NO_FFMPEG9),
    "ertmp-hevc": Input(_process(_hevc), unavailable=NO_FFMPEG9,
                        not_watchable={"passthrough": {"hlsjs-from-publish": HEVC_IN_CHROMIUM,
                                                       "hlsjs-join-2s": HEVC_IN_CHROMIUM,
                                                       "native-from-1s": HEVC_IN_CHROMIUM,
                                                       "native-from-5s": HEVC_IN_CHROMIUM,
                                                       "whep": HEVC_NOT_WHEP}}),
    # OBS itself takes 2-12 s to start (Qt, llvmpipe): its players start once it is listed.
    "obs-studio": Input(_obs, unavailable=obspeer.unavailable, players_from="listed", late=10),
}

# name -> environment of the gateway.
CONFIGS = {
    "fast-start": {},
    "passthrough": {"SLUICE_TRANSCODE_ENABLED": "false"},
}


@dataclass
class Case:
    name: str
    config: str
    spec: Input
    workdir: Path
    players: dict = field(default_factory=dict)
    page_errors: list = field(default_factory=list)
    violations: list = field(default_factory=list)
    answers: int = 0
    whep: dict = field(default_factory=dict)
    recording: dict = field(default_factory=dict)
    gateway_log: str = ""
    publisher_log: str = ""
    skip: dict = field(default_factory=dict)

    def context(self) -> str:
        return f"--- gateway log tail\n{self.gateway_log[-2500:]}\n--- publisher log tail\n{self.publisher_log[-800:]}"


def _validate(case: Case, url: str, until: Callable[[], bool]) -> None:
    """Every playlist answer (multivariant and each media playlist, plain loads) through the validator."""
    seen: set[str] = set()
    while not until():
        try:
            r = requests.get(url, timeout=10)
            if r.status_code == 200:
                mv = hv.parse_multivariant(r.text, url)
                found = list(hv.check_multivariant(mv))
                case.answers += 1
                for media in sorted(set(mv.media_playlist_urls().values())):
                    m = requests.get(urljoin(url, media), timeout=10)
                    if m.status_code != 200:
                        found.append(f"{media}: HTTP {m.status_code} for a playlist the multivariant lists")
                        continue
                    case.answers += 1
                    found += list(hv.check_media(hv.parse_media_playlist(m.text, urljoin(url, media))))
                for v in found:
                    if str(v) not in seen:
                        seen.add(str(v))
                        case.violations.append(v)
        except requests.RequestException as e:
            case.violations.append(f"request failed: {e}")
        time.sleep(0.7)


def _listed(src: str, until: float) -> None:
    """Returns once the multivariant answers (OBS takes a few seconds to start), or at `until`."""
    eventually(lambda: requests.get(src, timeout=10).status_code == 200, until - time.monotonic(), period=0.2,
               ignoring=requests.RequestException)


def _whep(case: Case, url: str) -> None:
    p = subprocess.run([sys.executable, str(HERE / "whep_aiortc.py"), url, "--seconds", "5"],
                       capture_output=True, text=True, timeout=60)
    lines = [json.loads(line) for line in p.stdout.splitlines() if line.startswith("{")]
    case.whep = next((x for x in lines if x.get("done")), {"done": False, "stderr": p.stderr[-800:]})


def _recording(case: Case, base: str, key: str) -> None:
    """Waits for the stream's recording to finish, then decodes it whole from the URL the API gives."""
    rows = eventually(lambda: requests.get(f"{base}/api/recordings", params={"key": key}, timeout=10).json(), 30,
                      until=lambda rows: rows and all(r.get("finished") for r in rows), period=0.5)
    case.recording = {"rows": rows}
    # An unfinished recording's playlists have no ENDLIST: FFmpeg would follow them as live until its timeout.
    if not rows or not all(r.get("finished") for r in rows):
        return
    url = base + rows[-1]["url"]
    index = requests.get(url, timeout=10)
    case.recording["index"] = index.status_code
    if index.status_code != 200:
        return
    p = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", "v:0",
                        "-show_entries", "stream=nb_read_frames,width,height", "-of", "json", url],
                       capture_output=True, text=True, timeout=120)
    case.recording["ffprobe"] = json.loads(p.stdout or "{}").get("streams", [])
    case.recording["ffprobeErrors"] = p.stderr[-1500:]
    case.recording["seconds"] = rows[-1].get("seconds")


def _run_case(name: str, config: str, workdir: Path, chunk: Path) -> Case:
    spec = INPUTS[name]
    case = Case(name, config, spec, workdir)
    case.skip = spec.not_watchable.get(config, {})
    key = f"m-{name}"
    shutil.copyfile(chunk, workdir / "hls-chunk.js")
    shutil.copyfile(HERE / "interop_page.html", workdir / "index.html")
    pages = PageServer(workdir)
    rec = workdir / "rec"
    shutil.rmtree(rec, ignore_errors=True)
    gw = Gateway(workdir, ["--record", str(rec)],
                 env={"SLUICE_HLS_RECONNECT_GRACE_S": "2", **CONFIGS[config]}).start()
    base = f"http://127.0.0.1:{gw.http_port}"
    (workdir / "sluice-player.js").write_bytes(requests.get(f"{base}/pages/sluice-player.js", timeout=10).content)
    driver = headless_chromium(workdir)
    publisher = None
    try:
        driver.get(pages.url("index.html"))
        eventually_in_page(driver, "return window.ready === true", bool, 20, period=0.1)
        src = gw.hls_url(key)
        publisher = spec.start(gw, key, spec.seconds + spec.lead + spec.late, workdir)
        t_publish = time.monotonic()
        t0 = t_publish
        if spec.players_from == "listed":
            _listed(src, t_publish + spec.seconds + spec.late)
            t0 = time.monotonic()
        stop_at = t_publish + spec.seconds + spec.late - 0.5
        checker = threading.Thread(target=_validate, args=(case, src, lambda: time.monotonic() > stop_at), daemon=True)
        checker.start()
        whep = threading.Thread(target=lambda: (_listed(src, t_publish + spec.seconds + spec.late),
                                                time.sleep(max(0.0, t0 + 3 - time.monotonic())),
                                                _whep(case, f"{base}/whep/{key}")), daemon=True)
        whep.start()
        # The native players fetch from `localhost`: Chromium's 6 connections per host are then not shared with the
        # hls.js players' blocking requests, as for viewers on separate pages.
        native = src.replace("127.0.0.1", "localhost")
        for at, call in ((0, f"startHls('hlsjs-from-publish', {src!r})"), (1, f"startNative('native-from-1s', {native!r})"),
                         (2, f"startHls('hlsjs-join-2s', {src!r})"), (5, f"startNative('native-from-5s', {native!r})")):
            time.sleep(max(0.0, t0 + at - time.monotonic()))
            driver.execute_script(call)
        time.sleep(max(0.0, stop_at - time.monotonic()))
        case.players = driver.execute_script("return window.report()")
        case.page_errors = driver.execute_script("return window.pageErrors")
        driver.save_screenshot(str(workdir / "players.png"))
        checker.join(15)
        whep.join(60)
    finally:
        driver.quit()
        if publisher is not None:
            if isinstance(publisher, Publisher):
                publisher.wait(8)
            publisher.stop()
            case.publisher_log = publisher.log()
        pages.close()
    try:
        _recording(case, base, key)
    finally:
        gw.stop()
        case.gateway_log = gw.log()
    (workdir / "case.json").write_text(json.dumps({k: v for k, v in case.__dict__.items()
                                                   if k in ("players", "page_errors", "whep", "recording", "answers")},
                                                  default=str, indent=1))
    return case


CASES = [(i, c) for i in INPUTS for c in CONFIGS]


@pytest.fixture(scope="module", params=CASES, ids=[f"{i}-{c}" for i, c in CASES])
def case(request) -> Case:
    name, config = request.param
    why = INPUTS[name].unavailable()
    if why:
        pytest.skip(why)
    if no_browser():
        pytest.skip(no_browser())
    try:
        chunk = hlsjs.extract()
    except hlsjs.Unavailable as e:
        pytest.skip(str(e))
    workdir = ARTIFACTS / f"matrix-{name}-{config}"
    workdir.mkdir(parents=True, exist_ok=True)
    for old in workdir.iterdir():
        if old.is_file():
            old.unlink()
    return _run_case(name, config, workdir, chunk)


def _player(case: Case, name: str, min_seconds: float) -> None:
    if name in case.skip:
        pytest.skip(case.skip[name])
    p = case.players.get(name)
    assert p is not None, f"{name} never started: {case.page_errors}\n{case.context()}"
    assert p["fatal"] is None, f"{name}: {p['fatal']} ({p})\n{case.context()}"
    assert p["firstFrame"] is not None and p["currentTime"] >= min_seconds, f"{name} did not play: {p}\n{case.context()}"


def _no_stall(case: Case, name: str) -> None:
    if f"stall:{name}" in case.spec.excused.get(case.config, {}):
        return
    p = case.players[name]
    trace = "\n".join(p.get("trace", []) + (["…"] + p["traceTail"] if p.get("traceTail") else []))
    errors = [(t, said) for said, t in (p.get("firstErrors") or {}).items()]
    # Each stall ended (a frame came after it), and hls.js's own append race explains it: said, not failed.
    if p["waiting"] and len(p["stalls"]) == len(p["waiting"]) and hlsjs.append_race_explains(
            errors, [w[0] for w in p["waiting"]], sum(p["stalls"])):
        warnings.warn(f"{case.name}-{case.config} {name}: stalled {p['stalls']} ms after hls.js's own append race "
                      f"{[e for _, e in errors if hlsjs.is_append_race(e)]}")
        return
    assert not p["waiting"], (f"{name} stalled (waiting after its first frame at [ms, position]): "
                              f"{ {k: v for k, v in p.items() if k not in ('trace', 'traceTail')} }\n--- player trace\n{trace}\n{case.context()}")


def out_playlists_validate(case: Case) -> None:
    assert case.answers > 10, f"only {case.answers} playlist answers\n{case.context()}"
    excused = case.spec.excused.get(case.config, {})
    found = [v for v in case.violations if getattr(v, "rule", None) not in excused]
    assert not found, format_violations(found) + "\n" + case.context()


def out_hlsjs_from_publish(case: Case) -> None:
    _player(case, "hlsjs-from-publish", 5)
    _no_stall(case, "hlsjs-from-publish")


def out_hlsjs_join(case: Case) -> None:
    _player(case, "hlsjs-join-2s", 4)
    _no_stall(case, "hlsjs-join-2s")


def out_native_1s(case: Case) -> None:
    _player(case, "native-from-1s", 3)


def out_native_5s(case: Case) -> None:
    _player(case, "native-from-5s", 2)


def out_recording(case: Case) -> None:
    r = case.recording
    assert r.get("rows"), f"no recording listed: {r}\n{case.context()}"
    # One publish is one recording, finished once the stream ended (a stray second one was once left open).
    assert len(r["rows"]) == 1 and r["rows"][0].get("finished"), f"want one finished recording: {r}\n{case.context()}"
    assert r.get("index") == 200, f"/vod/.../index.m3u8 answered {r.get('index')}: {r['rows']}\n{case.context()}"
    frames = sum(int(s.get("nb_read_frames") or 0) for s in r.get("ffprobe", []))
    # Everything published is kept: at least 70 % of the frames sent (30 fps) decode from the VOD.
    want = 0.7 * 30 * case.spec.seconds
    assert frames >= want, f"the recording decodes {frames} frames, want >= {want:.0f}: {r}\n{case.context()}"


def out_whep(case: Case) -> None:
    if "whep" in case.skip:
        pytest.skip(case.skip["whep"])
    w = case.whep
    assert w.get("connected") and w.get("videoFrames", 0) >= 60, f"WHEP viewer: {w}\n{case.context()}"


OUTPUTS = {
    "playlists-validate": out_playlists_validate,
    "hlsjs-from-publish": out_hlsjs_from_publish,
    "hlsjs-join-2s": out_hlsjs_join,
    "native-from-1s": out_native_1s,
    "native-from-5s": out_native_5s,
    "recording-vod": out_recording,
    "whep": out_whep,
}


@pytest.mark.parametrize("output", list(OUTPUTS))
def test_matrix(case: Case, output: str, request) -> None:
    if output in case.skip and output not in ("whep",):
        pytest.skip(case.skip[output])
    known = case.spec.known_failures.get(case.config, {}).get(output)
    if known:
        request.applymarker(pytest.mark.xfail(reason=known, strict=known not in TIMING_DEPENDENT))
    OUTPUTS[output](case)

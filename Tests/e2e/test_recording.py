"""Recording (issue 21): every stream kept as HLS VOD on disk, served at /vod/{key}/{id}/, listed at /api/recordings.

The `ffmpeg` CLI publishes 640x360@30 with B-frames and AAC to a gateway started with `--record DIR`; what is
checked is what a VOD player and ffprobe see: VOD playlists with ENDLIST whose EXTINFs round to at most
TARGETDURATION, the source's exact frame count and duration within a frame, a reconnect within the grace continuing
the same recording behind a DISCONTINUITY (a publish after the grace starts a new one), a `kill -9` losing only the
segment in flight, and clear 4xx answers for names that are not recordings.
"""
from __future__ import annotations

import re
import shutil
import signal
import subprocess
import time
from urllib.parse import urljoin

import requests

from procs import Gateway, Publisher, ffmpeg_cmd
from waiting import eventually
from test_hlsjs_ladder import PAGE, STATE_JS, _extract_hlsjs, driver, page_server  # noqa: F401 - fixtures

FPS = 30
PUBLISHED_S = 30
GRACE_S = 2


def gateway(workdir, record_dir, fresh: bool = True) -> Gateway:
    if fresh:
        shutil.rmtree(record_dir, ignore_errors=True)  # the artifact folder outlives a run
    # Slate off: a recording holds exactly the publishers' frames (test_continuity records through the slate).
    return Gateway(workdir, extra=["--record", str(record_dir)],
                   env={"SLUICE_HLS_RECONNECT_GRACE_S": str(GRACE_S), "SLUICE_INGEST_SLATE": "false"}).start()


def publish(gw: Gateway, key: str, seconds: float, log) -> Publisher:
    return Publisher(ffmpeg_cmd(gw.rtmp_url(key), seconds, bframes=2, size="640x360", rate=FPS), log)


def recordings(gw: Gateway, key: str) -> list[dict]:
    return requests.get(f"http://127.0.0.1:{gw.http_port}/api/recordings?key={key}", timeout=10).json()


def finished(gw: Gateway, key: str, count: int = 1):
    return eventually(lambda: (lambda r: len(r) >= count and all(x["finished"] for x in r) and r)(
        recordings(gw, key)), 30, period=0.25)


def media_playlists(gw: Gateway, rec: dict) -> dict[str, str]:
    base = f"http://127.0.0.1:{gw.http_port}{rec['url']}"
    index = requests.get(base, timeout=10)
    assert index.status_code == 200 and index.text.startswith("#EXTM3U"), index.text
    uris = [ln for ln in index.text.splitlines() if ln and not ln.startswith("#")]
    uris += re.findall(r'URI="([^"]+)"', index.text)
    return {u: requests.get(urljoin(base, u), timeout=10).text for u in uris}


def assert_vod(text: str, name: str):
    assert "#EXT-X-PLAYLIST-TYPE:VOD" in text and text.rstrip().endswith("#EXT-X-ENDLIST"), f"{name}:\n{text}"
    td = int(re.search(r"#EXT-X-TARGETDURATION:(\d+)", text).group(1))
    durations = [float(d) for d in re.findall(r"#EXTINF:([\d.]+),", text)]
    assert durations and all(round(d) <= td for d in durations), f"{name}: EXTINF {durations} over TD {td}"


def probe(url: str, stream: str) -> tuple[int, float]:
    """(frames read, duration in seconds) of one stream of an HLS URL, by ffprobe."""
    r = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-select_streams", stream, "-show_entries",
                        "stream=nb_read_frames:format=duration", "-of", "default=nw=1", url],
                       capture_output=True, text=True, timeout=120)
    frames = int(re.search(r"nb_read_frames=(\d+)", r.stdout).group(1))
    duration = float(re.search(r"duration=([\d.]+)", r.stdout).group(1))
    return frames, duration


def test_a_recording_is_a_valid_vod_of_exactly_what_was_published(workdir):
    gw = gateway(workdir, workdir / "rec")
    try:
        # The 30 s publish.
        pub = publish(gw, "rec-vod", PUBLISHED_S, workdir / "publisher.log")
        assert pub.wait(PUBLISHED_S + 30) == 0, pub.log()
        recs = finished(gw, "rec-vod")
        assert recs and len(recs) == 1, f"{recs}\n{gw.log()[-2000:]}"
        playlists = media_playlists(gw, recs[0])
        assert set(playlists) == {"video.m3u8", "audio.m3u8"}, list(playlists)
        for name, text in playlists.items():
            assert_vod(text, name)
        url = f"http://127.0.0.1:{gw.http_port}{recs[0]['url']}"
        frames, duration = probe(url.replace("index.m3u8", "video.m3u8"), "v:0")
        assert frames == PUBLISHED_S * FPS, f"{frames} frames recorded, {PUBLISHED_S * FPS} published"
        assert abs(duration - PUBLISHED_S) <= 1 / FPS + 0.001, duration
        assert abs(recs[0]["seconds"] - PUBLISHED_S) <= 0.05, recs[0]
        # Segments are immutable; the finished recording's playlists too.
        seg = re.search(r"^(video/\d+\.m4s)$", playlists["video.m3u8"], re.M).group(1)
        r = requests.get(url.replace("index.m3u8", seg), timeout=10)
        assert r.status_code == 200 and "immutable" in r.headers["Cache-Control"]
    finally:
        gw.stop()


def test_a_reconnect_within_the_grace_continues_the_recording_and_a_later_publish_starts_another(workdir):
    gw = gateway(workdir, workdir / "rec")
    try:
        for i in range(2):
            pub = publish(gw, "rec-again", 5, workdir / f"publisher{i}.log")
            assert pub.wait(30) == 0, pub.log()
        recs = finished(gw, "rec-again")
        assert recs and len(recs) == 1, recs
        video = media_playlists(gw, recs[0])["video.m3u8"]
        assert video.count("#EXT-X-DISCONTINUITY\n") == 1, video
        url = f"http://127.0.0.1:{gw.http_port}{recs[0]['url']}".replace("index.m3u8", "video.m3u8")
        assert probe(url, "v:0")[0] == 10 * FPS
        time.sleep(GRACE_S + 1)
        pub = publish(gw, "rec-again", 3, workdir / "publisher2.log")
        assert pub.wait(30) == 0, pub.log()
        recs = finished(gw, "rec-again", count=2)
        assert recs and len(recs) == 2, recs
    finally:
        gw.stop()


def test_kill_9_loses_only_the_segment_in_flight(workdir):
    rec = workdir / "rec"
    gw = gateway(workdir, rec)
    pub = publish(gw, "rec-crash", 30, workdir / "publisher.log")
    try:
        eventually(lambda: recordings(gw, "rec-crash"), 15)
        # The case: killed 20 s into the publish (the first segment is listed ~1 s in).
        time.sleep(19)
        gw.proc.send_signal(signal.SIGKILL)
        gw.proc.wait(10)
    finally:
        pub.stop()
    again = gateway(workdir, rec, fresh=False)
    try:
        recs = recordings(again, "rec-crash")
        assert len(recs) == 1 and recs[0]["finished"], recs
        # Up to the kill, less the segment in flight (1 s segments here): at least 19 s of the 20.
        assert recs[0]["seconds"] >= 19, recs
        playlists = media_playlists(again, recs[0])
        for name, text in playlists.items():
            assert_vod(text, name)
        url = f"http://127.0.0.1:{again.http_port}{recs[0]['url']}".replace("index.m3u8", "video.m3u8")
        frames, duration = probe(url, "v:0")
        assert frames == round(duration * FPS) and duration >= 19, (frames, duration)
        assert "finished as VOD" in again.log(), again.log()[-2000:]
    finally:
        again.stop()


def test_names_that_are_not_recordings_get_a_clear_4xx(workdir):
    gw = gateway(workdir, workdir / "rec")
    try:
        base = f"http://127.0.0.1:{gw.http_port}"
        for path, want in [("/vod/nokey/norec/index.m3u8", 404), ("/vod/a/..%2F..%2Fetc/passwd", 400),
                           ("/vod/a/.hidden/index.m3u8", 400), ("/vod/a/b/video/..%2F..%2Fx", 400),
                           ("/api/recordings?from=yesterday", 400)]:
            r = requests.get(base + path, timeout=10)
            assert r.status_code == want, f"{path}: {r.status_code} {r.text}"
    finally:
        gw.stop()


def test_hlsjs_and_chromium_native_play_a_recording_to_its_end(workdir, page_server, driver):
    shutil.copyfile(_extract_hlsjs(), workdir / "hls-chunk.js")
    gw = gateway(workdir, workdir / "rec")
    try:
        pub = publish(gw, "rec-play", 6, workdir / "publisher.log")
        assert pub.wait(30) == 0, pub.log()
        recs = finished(gw, "rec-play")
        url = f"http://127.0.0.1:{gw.http_port}{recs[0]['url']}"
        (workdir / "index.html").write_text(PAGE.replace("{src}", url))
        driver.get(f"http://127.0.0.1:{page_server.server_address[1]}/index.html")
        state = lambda: driver.execute_script(STATE_JS)  # noqa: E731
        end = eventually(lambda: (lambda s: s["t"] >= 5.5 and s)(state()), 30, period=0.25)
        s = state()
        assert end, f"hls.js stopped at {s['t']:.2f} s of 6: {s['log']['errors']}"
        assert not [e for e in s["log"]["errors"] if e[3]], s["log"]["errors"]
        # Chromium's own HLS player, on the same page's origin.
        driver.execute_script(f"""document.body.innerHTML = '<video id="n" muted autoplay src="{url}"></video>';""")
        native = eventually(lambda: driver.execute_script(
            "const v = document.getElementById('n'); return v.currentTime >= 5.5 || v.ended;"), 30, period=0.25)
        assert native, driver.execute_script(
            "const v = document.getElementById('n'); return [v.currentTime, v.error && v.error.message];")
    finally:
        gw.stop()


def test_retention_removes_the_oldest_recording_while_another_is_written(workdir):
    shutil.rmtree(workdir / "rec", ignore_errors=True)
    gw = Gateway(workdir, extra=["--record", str(workdir / "rec")],
                 env={"SLUICE_HLS_RECONNECT_GRACE_S": "1", "SLUICE_RECORD_MAX_SIZE_MB": "1",
                      "SLUICE_INGEST_SLATE": "false"}).start()
    try:
        first = publish(gw, "rec-old", 6, workdir / "publisher1.log")
        assert first.wait(30) == 0, first.log()
        old = finished(gw, "rec-old")
        assert old and old[0]["bytes"] > 500_000, old
        second = publish(gw, "rec-new", 6, workdir / "publisher2.log")
        removed = eventually(lambda: not recordings(gw, "rec-old") and "recording removed" in gw.log(), 20)
        # Removed while the newer one was still being written (never the one being written).
        growing = recordings(gw, "rec-new")
        assert removed and growing and not growing[0]["finished"], (recordings(gw, "rec-old"), growing)
        assert not (workdir / "rec" / "rec-old" / old[0]["id"]).exists()
        assert second.wait(30) == 0, second.log()
        new = finished(gw, "rec-new")
        assert new and new[0]["finished"], new
        url = f"http://127.0.0.1:{gw.http_port}{new[0]['url']}".replace("index.m3u8", "video.m3u8")
        assert probe(url, "v:0")[0] == 6 * FPS
    finally:
        gw.stop()

"""Recording control and MP4 download (issue 21): `POST /api/streams/{key}/recording` starts and stops a recording of
a live stream, and `GET /vod/{key}/{id}.mp4?start=&duration=` cuts a time range out of a recording as one MP4.

The `ffmpeg` CLI publishes 640x360@30 (1 s GOP) with AAC; the gateway runs without a ladder. What is checked is what
a client of the API, a VOD player and ffprobe see: the recording holds the stretch between start and stop (within a
segment), its playlists validate as VOD and ffprobe counts one frame per 1/30 s of it; with `record.enabled` a stop
ends the recording while the stream goes on unrecorded; the admin API refuses without the configured token; the MP4
download starts at the keyframe at or before `start`, lasts the asked duration within a segment, carries video and
audio, and ranges outside the recording or names that are not recordings get a clear 4xx.
"""
from __future__ import annotations

import json
import re
import shutil
import subprocess
import time

import requests

from procs import Gateway, Publisher, ffmpeg_cmd
from waiting import eventually
from test_recording import assert_vod, finished, media_playlists, probe, recordings

FPS = 30


def gateway(workdir, *, record: bool, env: dict[str, str] | None = None) -> Gateway:
    rec = workdir / "rec"
    shutil.rmtree(rec, ignore_errors=True)
    extra = ["--transcode", "off"] + (["--record", str(rec)] if record else [])
    # Slate off: a recording ends with its publisher (test_continuity records through the slate).
    return Gateway(workdir, extra=extra,
                   env={"SLUICE_RECORD_DIR": str(rec), "SLUICE_INGEST_SLATE": "false",
                        "SLUICE_HLS_RECONNECT_GRACE_S": "10", **(env or {})}).start()


def control(gw: Gateway, key: str, action: str, token: str | None = None, as_query: bool = False):
    url = f"http://127.0.0.1:{gw.http_port}/api/streams/{key}/recording"
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    if as_query:
        return requests.post(url, params={"action": action}, headers=headers, timeout=10)
    return requests.post(url, json={"action": action}, headers=headers, timeout=10)


def live(gw: Gateway, key: str) -> bool:
    r = requests.get(gw.hls_url(key).replace("index.m3u8", "video.m3u8"), timeout=10)
    return r.status_code == 200 and "#EXTINF" in r.text


def test_the_api_starts_and_stops_a_recording_of_a_live_stream(workdir):
    gw = gateway(workdir, record=False)
    pub = Publisher(ffmpeg_cmd(gw.rtmp_url("ctl"), 22, size="640x360", rate=FPS), workdir / "publisher.log")
    try:
        assert control(gw, "ctl", "start").status_code == 404  # Not live yet.
        assert eventually(lambda: live(gw, "ctl"), 20), gw.log()[-2000:]
        time.sleep(3)
        assert recordings(gw, "ctl") == [], "record.enabled is off: nothing recorded before the API says so"
        started = control(gw, "ctl", "start")
        assert started.status_code == 200, started.text
        rid = started.json()["recording"]
        t0 = time.monotonic()
        again = control(gw, "ctl", "start", as_query=True)
        assert again.status_code == 409 and rid in again.text, again.text
        time.sleep(8)
        stopped = control(gw, "ctl", "stop")
        elapsed = time.monotonic() - t0
        assert stopped.status_code == 200 and stopped.json()["recording"] == rid, stopped.text
        assert control(gw, "ctl", "stop").status_code == 409
        recs = finished(gw, "ctl")
        assert recs and [r["id"] for r in recs] == [rid], recs
        # Up to one segment (1 s) lost at each end: the one in flight at the start, the one open at the stop.
        assert elapsed - 2.2 <= recs[0]["seconds"] <= elapsed + 0.2, (recs[0], elapsed)
        playlists = media_playlists(gw, recs[0])
        assert set(playlists) == {"video.m3u8", "audio.m3u8"}, list(playlists)
        for name, text in playlists.items():
            assert_vod(text, name)
        url = f"http://127.0.0.1:{gw.http_port}{recs[0]['url']}".replace("index.m3u8", "video.m3u8")
        frames, duration = probe(url, "v:0")
        assert frames == round(duration * FPS) and abs(duration - recs[0]["seconds"]) <= 1 / FPS + 0.001, \
            (frames, duration, recs[0])
        audio = probe(url.replace("video.m3u8", "audio.m3u8"), "a:0")[1]
        assert abs(audio - duration) < 0.2, (audio, duration)
        assert pub.wait(40) == 0, pub.log()
        time.sleep(1)
        assert [r["id"] for r in recordings(gw, "ctl")] == [rid], "the stream went on unrecorded after the stop"
    finally:
        pub.stop()
        gw.stop()


def test_with_recording_on_a_stop_ends_the_recording_and_the_stream_goes_on_unrecorded(workdir):
    gw = gateway(workdir, record=True, env={"SLUICE_API_ADMIN_TOKEN": "s3cret"})
    pub = Publisher(ffmpeg_cmd(gw.rtmp_url("auto"), 14, size="640x360", rate=FPS), workdir / "publisher.log")
    try:
        assert eventually(lambda: recordings(gw, "auto"), 20), gw.log()[-2000:]
        time.sleep(4)
        refused = control(gw, "auto", "stop")
        assert refused.status_code == 401 and "Bearer" in refused.headers.get("WWW-Authenticate", ""), refused.text
        assert control(gw, "auto", "stop", token="wrong").status_code == 401
        stopped = control(gw, "auto", "stop", token="s3cret")
        assert stopped.status_code == 200, stopped.text
        recs = finished(gw, "auto")
        assert recs and len(recs) == 1 and 3 <= recs[0]["seconds"] <= 7, recs
        assert pub.wait(40) == 0, pub.log()
        time.sleep(1)
        after = recordings(gw, "auto")
        assert len(after) == 1 and after[0]["seconds"] == recs[0]["seconds"], after
    finally:
        pub.stop()
        gw.stop()


def ffprobe_json(path) -> dict:
    r = subprocess.run(["ffprobe", "-v", "error", "-count_frames", "-show_entries",
                        "stream=codec_type,nb_read_frames,start_time,duration:format=duration,format_name",
                        "-of", "json", str(path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_an_mp4_download_of_a_time_range_reads_in_ffprobe_with_its_duration(workdir):
    gw = gateway(workdir, record=True)
    try:
        pub = Publisher(ffmpeg_cmd(gw.rtmp_url("clip"), 12, size="640x360", rate=FPS), workdir / "publisher.log")
        assert pub.wait(40) == 0, pub.log()
        rec = finished(gw, "clip")[0]
        base = f"http://127.0.0.1:{gw.http_port}/vod/clip/{rec['id']}.mp4"
        r = requests.get(base, params={"start": "3.5", "duration": "4"}, timeout=30)
        assert r.status_code == 200 and r.headers["Content-Type"] == "video/mp4", r.text[:500]
        start = float(r.headers["X-Clip-Start"])
        # 1 s segments starting with a keyframe: the clip starts at the keyframe at or before 3.5 s.
        assert 2.4 <= start <= 3.5, start
        path = workdir / "clip.mp4"
        path.write_bytes(r.content)
        info = ffprobe_json(path)
        kinds = sorted(s["codec_type"] for s in info["streams"])
        assert kinds == ["audio", "video"], info
        duration = float(info["format"]["duration"])
        wanted = 3.5 + 4 - start  # From the keyframe to the asked end.
        assert wanted - 0.05 <= duration <= wanted + 1.05, (duration, wanted, info)
        video = next(s for s in info["streams"] if s["codec_type"] == "video")
        assert abs(int(video["nb_read_frames"]) - round(duration * FPS)) <= FPS // 10 + 1, (video, duration)
        # The whole recording, without a range: every frame published.
        whole = workdir / "whole.mp4"
        whole.write_bytes(requests.get(base, timeout=30).content)
        w = ffprobe_json(whole)
        v = next(s for s in w["streams"] if s["codec_type"] == "video")
        assert int(v["nb_read_frames"]) == 12 * FPS, w
        assert abs(float(w["format"]["duration"]) - 12) <= 0.1, w
        decode = subprocess.run(["ffmpeg", "-v", "error", "-i", str(path), "-f", "null", "-"],
                                capture_output=True, text=True, timeout=60)
        assert decode.returncode == 0 and not decode.stderr.strip(), decode.stderr[-2000:]
        for params, status in [({"start": "12.5"}, 416), ({"start": "-1"}, 400), ({"start": "abc"}, 400),
                               ({"duration": "0"}, 400)]:
            bad = requests.get(base, params=params, timeout=10)
            assert bad.status_code == status and bad.text, (params, bad.status_code, bad.text)
        for path_, status in [(f"/vod/clip/..%2F{rec['id']}.mp4", 400), ("/vod/clip/nope.mp4", 404),
                              ("/vod/..%2Fclip/x.mp4", 400)]:
            bad = requests.get(f"http://127.0.0.1:{gw.http_port}{path_}", timeout=10)
            assert bad.status_code == status, (path_, bad.status_code, bad.text)
    finally:
        gw.stop()

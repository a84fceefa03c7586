"""`sluice bench --player hlsjs,native`: real players in headless Chromium read the capture clock painted into
the pictures and report glass-to-glass per presented frame, publish -> first frame, join -> first frame and the
joining viewer's own glass, stalls, switches and every error counted (the bench's own page server, hls.js from
`make hlsjs`)."""
from __future__ import annotations

import json
import re
import subprocess

import pytest

import benchplayers
from procs import ARTIFACTS, SLUICE

OUT = ARTIFACTS / "bench-players"
SECONDS = 15
# Debug build, 2 shared cores, loaded (3 runs, 15:15 UTC 2026-11-28): hls.js glass p99 0.96-1.23 s; Chromium's own
# HLS drifts behind and showed p99 2.4-8.7 s (the bench reports it; here it only has to stay under its 10 s).
GLASS_P99_MS = {"hlsjs": 2_500, "native": 10_000}
# The same runs: join -> first frame 0.11-0.40 s (hls.js), 0.07-0.25 s (native).
JOIN_TO_FIRST_FRAME_MS = 1_500
# The joining viewer's own glass over the ~4 s it watches after its first frame (3 runs, 18:19-18:21 UTC 2026-11-28,
# load 6.7-9 with two other worktrees building): hls.js p50 0.79-0.83 s, p95 0.96-0.99 s; Chromium's own HLS joins
# about three target durations behind: p50 3.40-3.50 s, p95 3.40-3.52 s.
JOIN_GLASS_P95_MS = {"hlsjs": 2_000, "native": 6_000}


@pytest.fixture(scope="module")
def report():
    # A small source keeps the debug build's publisher, gateway and browser within the 2 cores.
    return benchplayers.run(OUT, "rtmp-llhls", "hlsjs,native", "640x360", SECONDS)


def rows(report, player):
    found = [s for s in report[1]["scenarios"] if s["player"] == player]
    assert len(found) == 1, report[1]["scenarios"]
    s = found[0]
    assert "skipped" not in s, s
    return s


@pytest.mark.parametrize("player", ["hlsjs", "native"])
def test_real_player_presents_frames_with_a_readable_pixel_clock(report, player):
    s = rows(report, player)
    g = s["glass"]
    # Frames the browser presented, each with the capture clock read from its pixels, not from the gateway.
    assert g["count"] >= 60, s
    assert 0 < g["p50Ms"] <= g["p90Ms"] <= g["p99Ms"] < GLASS_P99_MS[player], s
    assert s["frames"] == g["count"]
    assert s["unreadableFrames"] <= 0.1 * (s["frames"] + s["unreadableFrames"]), s
    assert s["heights"] == [360], s  # passthrough: one rendition


@pytest.mark.parametrize("player", ["hlsjs", "native"])
def test_first_frames_are_measured_from_publish_and_from_join(report, player):
    s = rows(report, player)
    # Its upper bound is FIRST_FRAME_BUDGET_MS (test_players_opened_at_publish_start_play_from_it).
    assert 0 < s["publishToFirstFrameMs"], s
    assert 0 < s["joinToFirstFrameMs"] < JOIN_TO_FIRST_FRAME_MS, s
    # The first frame shown comes no earlier than the stream could be played at all.
    assert s["publishToFirstFrameMs"] >= s["publishToPlayableMs"] * 0.5, s


@pytest.mark.parametrize("player", ["hlsjs", "native"])
def test_the_joining_viewers_glass_is_reported_beside_the_first_viewers(report, player):
    s = rows(report, player)
    g = s["joinGlass"]
    # The viewer opened on the running stream watches JOIN_WATCH_MS (4 s) after its first frame, clock from its pixels.
    assert g["count"] >= 30, s
    assert 0 < g["p50Ms"] <= g["p95Ms"] <= g["p99Ms"] and g["p95Ms"] < JOIN_GLASS_P95_MS[player], s
    # Its frames are not viewer 1's: the first viewer's glass counts its own, from the publish on.
    assert s["frames"] == s["glass"]["count"] and s["frames"] > g["count"], s


@pytest.mark.parametrize("player", ["hlsjs", "native"])
def test_errors_are_counted_not_dropped(report, player):
    s = rows(report, player)
    for key in ("errorCount", "levelLoadErrors", "fatalErrors", "startupErrors", "afterEndErrors", "stalls",
                "renditionSwitches"):
        assert isinstance(s[key], int) and s[key] >= 0, (key, s)
    assert s["errorCount"] >= s["levelLoadErrors"] + s["fatalErrors"] + s["afterEndErrors"], s
    assert s["errorCount"] >= s["startupErrors"], s
    assert len(s["errors"]) == min(10, s["errorCount"]), s


def test_table_names_the_player_and_what_each_column_measures(report):
    stdout, _ = report
    lines = stdout.splitlines()
    header = next(line for line in lines if line.startswith("scenario"))
    for column in ("player", "glass capture->shown", "publish->1st frame", "join->1st frame", "join glass p50/p95",
                   "stalls", "errors"):
        assert column in header, header
    # Cells are separated by two spaces or more; the joining viewer's glass cell is the JSON's p50/p95.
    columns = re.split(r"\s{2,}", header.strip())
    for player in ("hlsjs", "native"):
        line = next((ln for ln in lines if ln.split()[:2] == ["rtmp-llhls", player]), None)
        assert line is not None, stdout
        cells = dict(zip(columns, re.split(r"\s{2,}", line.strip())))
        g = rows(report, player)["joinGlass"]
        assert cells["join glass p50/p95"] == f"{int(g['p50Ms'] + 0.5)}/{int(g['p95Ms'] + 0.5)}", (cells, g)
    assert "before encoding" in stdout


def test_missing_hlsjs_fails_with_how_to_get_it(tmp_path):
    cmd = [str(SLUICE), "bench", "--scenarios", "rtmp-llhls", "--player", "hlsjs", "--duration", "5",
           "--hlsjs", str(tmp_path / "absent.js")]
    p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
    assert p.returncode != 0, p.stdout
    assert "make hlsjs" in p.stdout + p.stderr, p.stdout + p.stderr


# Fast start as a real player sees it, opened as the streamer goes live: the first playlist is held, not refused, and
# comes with one whole segment (1 s GOP). hls.js starts on it without an error or a retry. Chromium's own HLS quits
# (DEMUXER_ERROR_COULD_NOT_PARSE) while the playlist is shorter than its start-up: it treats the time before play as a
# pause, then resumes "live" past the last listed segment and finds nothing (media/filters/hls_rendition_impl.cc,
# ResumeLivePlayback). The page starts it again, as the watch page does; within a few segments it plays for good.
# Budgets are generous for the debug build and a loaded box; the old policy (three segments held back) took 6-7 s.
FIRST_FRAME_BUDGET_MS = {"hlsjs": 2_500, "native": 4_000}
NATIVE_SETTLED_MS = 5_000


def trace(player):
    t = json.loads((OUT / f"rtmp-llhls-{player}.json").read_text())
    return t, t["publishStart"]


@pytest.mark.parametrize("player", ["hlsjs", "native"])
def test_players_opened_at_publish_start_play_from_it(report, player):
    s = rows(report, player)
    assert s["publishToFirstFrameMs"] <= FIRST_FRAME_BUDGET_MS[player], s
    assert s["levelLoadErrors"] == 0, s
    t, start = trace(player)
    if player == "hlsjs":
        benchplayers.assert_hlsjs_started_cleanly(s, t)
        return
    late = [e for e in t["events"] if e["viewer"] == 1 and e["type"] == "fatal"
            and NATIVE_SETTLED_MS < e["at"] - start < SECONDS * 1000]
    assert not late, f"Chromium native failed after {NATIVE_SETTLED_MS} ms: {late}"
    shown = [f["shown"] - start for f in t["frames"] if f["viewer"] == 1]
    assert any(x > SECONDS * 1000 - 2_000 for x in shown), "Chromium native stopped presenting frames"


# hls.js dates each segment by adding up the EXTINFs and finds the next one at the live edge with no tolerance, and
# lines audio up with video by PROGRAM-DATE-TIME in milliseconds. Lengths printed rounded up (47 AAC frames =
# 1.0026666 s as 1.00267) or audio dated a fraction of a millisecond late made it load each new audio segment's first
# part one blocking reload (a part, ~200 ms) after the playlist listed it, at every boundary, so once a second the
# audio buffer ahead of the playhead fell to ~0.25 s. Now it loads that part as the playlist that lists it arrives.
AUDIO_LATE_MS = 100


def test_hlsjs_loads_each_new_audio_segment_as_soon_as_it_is_listed(report):
    t, _ = trace("hlsjs")
    listed, loaded = {}, {}
    for e in t["events"]:
        if e["viewer"] != 1:
            continue
        words = e.get("detail", "").split() + ["", ""]
        if e["type"] == "levelUpdated" and words[0] == "audio" and words[1].startswith("last="):
            listed.setdefault(words[1][5:], e["at"])
        if e["type"] == "partLoading" and words[0] == "audio" and "init" not in words[1]:
            loaded.setdefault(words[1], e["at"])
    # Boundaries m.0 past the start-up (the first segments load in a burst at join).
    lags = {m: round(loaded[f"{m}.0"] - listed[f"{m}.0"]) for m in range(3, 100)
            if f"{m}.0" in loaded and f"{m}.0" in listed}
    late = {m: lag for m, lag in lags.items() if lag > AUDIO_LATE_MS}
    (OUT / "audio-boundaries.json").write_text(json.dumps({"lagMs": lags, "late": late}))
    assert len(lags) >= 5, lags
    # Before the fix every boundary was late; a loaded machine may delay a request now and then, never most.
    assert len(late) <= len(lags) // 4, f"audio first parts loaded a reload late at {late} of {lags}"

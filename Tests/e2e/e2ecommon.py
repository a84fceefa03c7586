"""Assertions shared by the live-stream tests (ffmpeg and `sluice publish` publishers)."""
from __future__ import annotations

from procs import format_violations
from session import LiveRun

# Rules that a playlist response (or the sequence of them) proves; HTTP and cadence are separate tests.
PLAYLIST_RULES = ("SYNTAX", "M", "P", "H", "R", "SKIP", "B", "V")


def assert_stream_followed(run: LiveRun, min_segments: int = 5) -> None:
    f = run.follow
    assert f.multivariant is not None, f"no multivariant playlist\n{run.context()}"
    assert set(f.renditions) >= {"video"} and any(n.startswith("audio") for n in f.renditions), \
        f"want a video and an audio media playlist, got {list(f.renditions)}\n{run.context()}"
    for name, rf in f.renditions.items():
        blocked = [b for b in rf.blocking if b.status == 200]
        assert len(rf.segments) >= min_segments, f"{name}: only {len(rf.segments)} segments\n{run.context()}"
        assert len(rf.parts) >= 3 * min_segments, f"{name}: only {len(rf.parts)} parts\n{run.context()}"
        assert len(blocked) >= 10, f"{name}: only {len(blocked)} blocking reloads answered\n{run.context()}"
        assert rf.inits, f"{name}: no init section"


def assert_playlists_valid(run: LiveRun, exclude: tuple[str, ...] = ("HTTP", "M11"), excuse=None) -> None:
    vs = [v for v in run.violations(exclude=exclude) if excuse is None or not excuse(v)]
    assert not vs, f"{len(vs)} playlist rule violations:\n{format_violations(vs)}\n{run.context()}"


def assert_http_valid(run: LiveRun) -> None:
    vs = run.violations(include=("HTTP",))
    if run.probe:
        vs += [v for v in run.probe.violations if v.rule == "HTTP"]
    # The same header problem repeats on every response: show each message shape once.
    seen, unique = set(), []
    for v in vs:
        k = (v.rule, v.message.split(" http")[0], v.message.split(": ")[-1])
        if k not in seen:
            seen.add(k)
            unique.append(v)
    assert not vs, f"{len(vs)} HTTP violations, distinct:\n{format_violations(unique)}"


def assert_media_valid(run: LiveRun) -> None:
    a = run.analysis
    assert a is not None, f"nothing to analyse\n{run.context()}"
    print(a.text())
    assert not a.violations, f"{len(a.violations)} media violations:\n{format_violations(a.violations)}"
    for name, s in a.summaries.items():
        assert s.decoded_frames > 0, f"{name}: ffprobe decoded nothing"
        assert s.concatenations_checked >= 3, f"{name}: only {s.concatenations_checked} segments had all parts"
        if s.handler == "vide":
            assert s.independent_parts >= 3, f"{name}: only {s.independent_parts} INDEPENDENT parts"


def cross_fetch_excused(v) -> bool:
    """Findings a cache may cause by doing its job: the R3 and delta-vs-full checks compare with a plain playlist
    fetched "right after", which an edge may answer from its copy up to max-age (TD/2, at least 1 s) old."""
    return v.rule == "R3" or (v.rule == "SKIP" and "ahead of the full" in v.message)


def assert_followed_through_edge(f, min_parts: int, excused=cross_fetch_excused) -> str:
    """A follower's run through an edge: it started, erred nowhere, saw `min_parts` parts of every rendition, and
    every finding not `excused` is a failure. Returns a one-line summary of what was excused."""
    assert f is not None and f.multivariant is not None, f"follower never started: {f and f.errors}"
    assert not f.errors, "\n".join(f.errors[:20])
    for name, rf in f.renditions.items():
        assert len(rf.parts) >= min_parts, f"{name}: only {len(rf.parts)} parts through the edge"
    all_vs = f.all_violations()
    vs = [v for v in all_vs if not excused(v)]
    assert not vs, f"{len(vs)} violations through the edge:\n{format_violations(vs)}"
    return f"{len(all_vs)} excused timing/cross-fetch findings"


def assert_viewers_kept_receiving(run: dict, viewers: int, seconds: float) -> None:
    """`sluice bench --viewers` through an edge: it ran, every viewer received parts, about five parts a second each
    over the window (give or take start-up), and at most 1 % of requests failed."""
    r = run["report"]
    assert run["bench_rc"] == 0 and r is not None, run["bench_out"][-3000:]
    print("\n" + run["bench_out"])
    assert r["activeViewers"] == viewers, run["bench_out"]
    assert r["parts"] >= viewers * seconds * 5 * 0.8, run["bench_out"]
    assert r["errors"] <= r["requests"] * 0.01, run["bench_out"]

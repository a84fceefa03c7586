"""B-frames, then a publisher reconnect on the same key: DISCONTINUITY with continuous MSNs. With the slate off: the
playlists wait through the gap and the reconnect is one discontinuity (test_continuity covers the slate)."""
from __future__ import annotations

import signal
import time

import pytest

from e2ecommon import assert_playlists_valid
from procs import ARTIFACTS, FAST_SEGMENTS, Publisher, ffmpeg_cmd, format_violations
from session import live_run

KEY = "e2e-reconnect"
FIRST_SECONDS, GAP_SECONDS, SECOND_SECONDS = 7, 2, 8


STOPPED_AT: list[float] = []
RESTARTED_AT: list[float] = []


def reconnect(gw, pubs):
    """Stop the first publisher mid-stream, wait, publish again on the same key."""
    time.sleep(FIRST_SECONDS)
    STOPPED_AT.append(time.monotonic())
    pubs[0].stop(signal.SIGTERM)
    time.sleep(GAP_SECONDS)
    RESTARTED_AT.append(time.monotonic())
    pubs.append(Publisher(ffmpeg_cmd(gw.rtmp_url(KEY), SECOND_SECONDS, bframes=2),
                          ARTIFACTS / "bframes_reconnect" / "publisher2.log"))


@pytest.fixture(scope="module")
def run():
    return live_run(ARTIFACTS / "bframes_reconnect", KEY,
                    lambda gw: ffmpeg_cmd(gw.rtmp_url(KEY), 60, bframes=2),
                    follow_seconds=FIRST_SECONDS + GAP_SECONDS + SECOND_SECONDS, during=reconnect,
                    gateway_args=FAST_SEGMENTS, gateway_env={"SLUICE_INGEST_SLATE": "false"})


def test_playlist_shows_one_discontinuity_with_continuous_msns(run):
    f = run.follow
    assert f.renditions, run.context()
    for name, rf in f.renditions.items():
        msns = sorted(rf.history.uri_by_msn)
        assert msns, f"{name}: no segments\n{run.context()}"
        assert msns == list(range(msns[0], msns[-1] + 1)), f"{name}: MSNs not continuous: {msns}"
        flagged = [m for m, d in rf.history.discflag_by_msn.items() if d]
        assert len(flagged) == 1, f"{name}: want one DISCONTINUITY, got MSNs {flagged}\n{run.context()}"
        m = flagged[0]
        numbers = rf.history.disc_by_msn
        before = {numbers[x] for x in numbers if x < m}
        after = {numbers[x] for x in numbers if x >= m}
        assert len(before) == 1 and len(after) == 1 and after.pop() == before.pop() + 1, \
            f"{name}: discontinuity numbers {numbers}"
        assert any(x > m + 2 for x in msns), f"{name}: too few segments after the reconnect"


def test_discontinuity_at_the_same_msn_in_every_rendition(run):
    points = {name: sorted(m for m, d in rf.history.discflag_by_msn.items() if d)
              for name, rf in run.follow.renditions.items()}
    assert len({tuple(p) for p in points.values()}) == 1, points


def test_every_playlist_response_validates(run):
    # When a publisher stops, its encoder flushes video (B-frame lookahead) past the last audio and the rungs
    # flush behind the source, so the renditions' edges legitimately differ then: R3 timing is excused around
    # both stops (the SIGTERM, and the second publisher's own end after SECOND_SECONDS).
    stops = STOPPED_AT[:1] + [t + SECOND_SECONDS for t in RESTARTED_AT[:1]]

    def at_a_stop(v):
        return v.rule == "R3" and any(t - 1 <= v.at <= t + GAP_SECONDS + 2 for t in stops)

    assert_playlists_valid(run, excuse=at_a_stop)


def test_segments_after_the_discontinuity_decode(run):
    a = run.analysis
    assert a is not None, run.context()
    print(a.text())
    assert not a.violations, format_violations(a.violations)
    for name, s in a.summaries.items():
        assert s.groups >= 2, f"{name}: decoded {s.groups} runs; want one before and one after the reconnect"
        assert s.decoded_frames > 0


def test_outage_requests_fail_cleanly(run):
    """While no publisher is connected, blocking requests may wait or 503, never 5xx otherwise or 4xx."""
    bad = [e for e in run.follow.errors if "->" in e and not e.rstrip().endswith("503")]
    assert not bad, bad

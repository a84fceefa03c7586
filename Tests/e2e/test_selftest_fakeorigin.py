"""The suite checks itself: a conforming Python origin passes every check, a faulty one fails them.

This runs without the gateway, so a broken rule in hlsvalidate / follower / llprobe / streamchecks
shows up here rather than as a false alarm (or a silent pass) against Sluice.
"""
from __future__ import annotations

import threading
import time

import pytest

import llprobe
import streamchecks
from fakeorigin import FakeOrigin
from follower import follow
from procs import ARTIFACTS, format_violations


def _run(name: str, seconds: float, faults: tuple[str, ...] = (), probe: bool = True):
    wd = ARTIFACTS / name
    origin = FakeOrigin(wd, seconds=seconds + 6, faults=faults).start()
    try:
        box = []
        t = threading.Thread(target=lambda: box.append(follow(origin.url, seconds)), daemon=True)
        t.start()
        pr = llprobe.ProbeResult()
        if probe:
            time.sleep(3)
            pr = llprobe.probe(origin.url, origin.url.replace("index.m3u8", "video.m3u8"))
        t.join(seconds + 30)
        res = box[0]
        return res, pr, streamchecks.analyze(res, wd)
    finally:
        origin.stop()


@pytest.fixture(scope="module")
def good_run():
    return _run("selftest_good", 6)


def test_conforming_origin_passes_every_check(good_run):
    res, probe, analysis = good_run
    vs = res.all_violations() + probe.violations + analysis.violations
    for rf in res.renditions.values():
        vs += rf.history.cadence_violations()
    assert not res.errors, res.errors
    assert not vs, format_violations(vs)
    for name, rf in res.renditions.items():
        assert rf.delta_count > 0 and rf.report_checks > 0 and len(rf.parts) > 15, name
    assert all(s.concatenations_checked >= 3 and s.decoded_frames for s in analysis.summaries.values())


# One faulty run carries several independent faults; the clean run above shows every rule found
# here comes from a fault, and each fault maps to its own rule.
FAULTS = {"long-part": {"P3", "P4"}, "wrong-independent": {"F6"}, "no-cors": {"HTTP"},
          "skip-too-much": {"SKIP"}, "sc-differs": {"M4"}, "pdt-skew": {"M8"},
          "stale-report": {"R3"}}


def test_faulty_origin_is_caught():
    res, probe, analysis = _run("selftest_faults", 4, tuple(FAULTS), probe=False)
    found = {v.rule for v in res.all_violations() + probe.violations + analysis.violations}
    for fault, rules in FAULTS.items():
        assert rules <= found, f"{fault}: want {rules}, found {found}"


def test_origin_that_does_not_block_is_caught():
    res, _, _ = _run("selftest_early_return", 3, ("early-return",), probe=False)
    assert "B2" in {v.rule for v in res.all_violations()}

"""The e2e tests let through one thing stock hls.js does on its own, its append race (`hlsjs.APPEND_RACE`): these
golden cases keep that allowance as narrow as the race (what the browser said, how soon the stall came, how long)."""
from __future__ import annotations

import pytest

import hlsjs

RACE = ("mediaError/bufferAppendError (audio audio 2.5 InvalidStateError: Failed to execute 'appendBuffer' on "
        "'SourceBuffer': This SourceBuffer is still processing an 'appendBuffer' or 'remove' operation.)")
QUOTA = ("mediaError/bufferAppendError (video main 4.1 QuotaExceededError: Failed to execute 'appendBuffer' on "
         "'SourceBuffer': The SourceBuffer is full, and cannot free space to append additional buffers.)")
HOLE = "mediaError/bufferSeekOverHole (Error: fragment loaded with buffer holes, seeking from 1.818 to 1.970)"


@pytest.mark.parametrize("errors, waits, stalled_ms, explained, why", [
    # Fresh clone run 8's matrix cell: the race at 163 ms, the stall at 829 ms for 133 ms.
    ([(163, RACE), (906, HOLE)], [829], 133, True, "the race, then a short stall on its hole"),
    ([(163, RACE)], [829, 1500], 200, True, "two short stalls after it"),
    ([(163, RACE)], [829], 301, False, "a stall longer than a hole the race leaves"),
    ([(163, RACE)], [829, 1500, 2000], 90, False, "more stalls than a race explains"),
    ([(163, RACE)], [3200], 50, False, "a stall long after the race"),
    ([(900, RACE)], [829], 50, False, "a stall before the race"),
    ([(163, QUOTA)], [829], 50, False, "another append error"),
    ([(163, HOLE)], [829], 50, False, "a hole without the race"),
    ([], [829], 50, False, "no error at all"),
])
def test_append_race_explains_only_its_own_short_stalls(errors, waits, stalled_ms, explained, why):
    assert hlsjs.append_race_explains(errors, waits, stalled_ms) is explained, why


@pytest.mark.parametrize("said, race", [
    (RACE, True),
    # The bench page puts the playlist or part URL before what the browser said.
    ("mediaError/bufferAppendError http://127.0.0.1:5/live/k/a/16.0.m4s (InvalidStateError: Failed to execute "
     "'appendBuffer' on 'SourceBuffer': This SourceBuffer is still processing an 'appendBuffer' or 'remove' "
     "operation.)", True),
    ("mediaError/bufferAppendError http://127.0.0.1:5/live/k/a/16.0.m4s", False),
    (QUOTA, False),
    ("networkError/levelLoadError http://127.0.0.1:5/live/k/video.m3u8 This SourceBuffer is still processing an "
     "'appendBuffer'", False),
])
def test_the_race_is_told_by_what_the_browser_said(said, race):
    assert hlsjs.is_append_race(said) is race

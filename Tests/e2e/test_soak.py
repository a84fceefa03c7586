"""Two-minute soak (the 1-hour one is `make soak`): one publisher, 200 blocking viewers, RSS and open fds
flat (tolerances in soak.py), the playlist keeping live pace, SIGTERM still exiting 0. About 2.3 min."""
from __future__ import annotations

import json

import soak
from procs import ARTIFACTS


def test_two_minute_soak_with_200_blocking_viewers_stays_flat():
    r = soak.run(seconds=110, viewers=200, workdir=ARTIFACTS / "soak_short", interval=10, warmup=30)
    print(r.bench_output[-2000:])
    print(json.dumps(r.summary(), indent=2))
    assert len(r.samples) >= 10, r.failures
    assert not r.judge(), r.judge()

"""One live run: gateway + publisher + follower (+ optional probes), cleaned up whatever happens."""
from __future__ import annotations

import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Optional

import hlsvalidate as hv
import llprobe
import streamchecks
from procs import Gateway, Publisher
from follower import FollowResult, follow, wait_for_multivariant


@dataclass
class LiveRun:
    gateway: Gateway
    follow: FollowResult
    analysis: Optional[streamchecks.Analysis]
    probe: Optional[llprobe.ProbeResult]
    publishers: list[Publisher] = field(default_factory=list)
    gateway_exit: Optional[int] = None
    notes: list[str] = field(default_factory=list)

    def violations(self, *, include: tuple[str, ...] = (), exclude: tuple[str, ...] = ()) -> list[hv.Violation]:
        vs = self.follow.all_violations()
        return [v for v in vs if (not include or v.rule.startswith(include)) and not v.rule.startswith(exclude)]

    def context(self) -> str:
        out = [f"gateway: {' '.join(getattr(self.gateway, 'cmd', []))}",
               f"gateway log tail:\n{self.gateway.log()[-1500:]}"]
        for p in self.publishers:
            out.append(f"publisher log tail:\n{p.log()[-800:]}")
        if self.follow.errors:
            out.append("follower errors:\n" + "\n".join(self.follow.errors[:20]))
        return "\n".join(out)


def live_run(workdir: Path, key: str, publisher_cmd: Callable[[Gateway], list[str]], *, follow_seconds: float,
             probe: bool = False, during: Optional[Callable[[Gateway, list[Publisher]], None]] = None,
             skip_every: int = 4, stop_gateway: bool = True,
             publisher_grace: float = 8, gateway_args: Optional[list[str]] = None,
             min_variants: int = 1, gateway_config: Optional[Path] = None,
             gateway_env: Optional[dict[str, str]] = None) -> LiveRun:
    workdir.mkdir(parents=True, exist_ok=True)
    for old in workdir.iterdir():
        if old.is_file():
            old.unlink()
    gw = Gateway(workdir, gateway_args, config=gateway_config, env=gateway_env).start()
    pubs: list[Publisher] = []
    run = LiveRun(gw, FollowResult(None), None, None, pubs)
    try:
        pubs.append(Publisher(publisher_cmd(gw), workdir / "publisher.log"))
        mv_url = gw.hls_url(key)
        box: list[FollowResult] = []
        t = threading.Thread(target=lambda: box.append(follow(mv_url, follow_seconds, skip_every,
                                                                      min_variants=min_variants)), daemon=True)
        t.start()
        if probe:
            r = wait_for_multivariant(mv_url, 15)
            if r is not None:
                from urllib.parse import urljoin
                mv = hv.parse_multivariant(r.text, mv_url)
                media = next(iter(mv.media_playlist_urls().values()), None)
                if media:
                    time.sleep(2.5)  # let the window grow past a few segments first
                    run.probe = llprobe.probe(mv_url, urljoin(mv_url, media))
        if during is not None:
            during(gw, pubs)
        t.join(follow_seconds + 90)
        run.follow = box[0] if box else FollowResult(None, errors=["follower did not finish"])
        run.follow.log.write(workdir / "exchanges.jsonl")
        if run.follow.renditions:
            run.analysis = streamchecks.analyze(run.follow, workdir)
        for name, rf in run.follow.renditions.items():
            if rf.history.last is not None:
                (workdir / f"last-{name.replace(':', '_')}.m3u8").write_text(rf.history.last.text)
    finally:
        for p in pubs:
            if p.proc.poll() is None:
                p.wait(publisher_grace)
            if p.proc.poll() is None:
                p.stop()
        if stop_gateway:
            run.gateway_exit = gw.stop()
    return run

"""A small, conforming LL-HLS origin in Python, used only to self-test the e2e suite.

It replays FFmpeg-made CMAF fragments (one fragment per part) in real time with blocking reload,
delta updates, preload hints and rendition reports, so the validator, follower and media checks
can be shown to pass on a good origin (no false alarms) and to fail on a broken one (`faults`).
"""
from __future__ import annotations

import http.server
import subprocess
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Optional
from urllib.parse import parse_qs, urlsplit

import mediacheck as mc

TD, PT, SKIP_UNTIL, WINDOW, PART_SEGMENTS = 1, 0.2, 6.0, 10, 3


@dataclass
class FakePart:
    start: float
    duration: float
    independent: bool
    data: bytes


@dataclass
class Rendition:
    name: str
    init: bytes
    codecs: str
    parts: list[FakePart]
    segments: list[list[int]] = field(default_factory=list)  # part indexes per segment


def _encode(path: Path, seconds: float, video: bool) -> None:
    src = ["-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30"] if video else \
        ["-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000"]
    codec = ["-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-g", "30", "-pix_fmt", "yuv420p",
             "-an"] if video else ["-c:a", "aac", "-b:a", "128k", "-vn"]
    frag = "200000" if video else "190000"
    subprocess.run(["ffmpeg", "-v", "error", *src, "-t", str(seconds), *codec, "-f", "mp4", "-movflags",
                    "+frag_keyframe+empty_moov+default_base_moof", "-frag_duration", frag, "-y", str(path)],
                   check=True)


def _load(name: str, path: Path) -> Rendition:
    data = path.read_bytes()
    boxes = list(mc.iter_boxes(data))
    first_moof = next(s for k, s, _, _ in boxes if k == "moof")
    init = data[:first_moof]
    track = next(iter(mc.parse_init(init).tracks.values()))
    parts: list[FakePart] = []
    i = 0
    while i < len(boxes):
        kind, s, _, _ = boxes[i]
        if kind == "moof":
            end = boxes[i + 1][3]
            chunk = data[s:end]
            frag = mc.parse_fragments(chunk)[0]
            dur = sum(x.duration for x in frag.samples) / track.timescale
            start = frag.tfdt / track.timescale
            sync = frag.samples[0].is_sync is not False
            parts.append(FakePart(start, dur, sync if track.handler == "vide" else False, chunk))
            i += 2
        else:
            i += 1
    r = Rendition(name, init, track.codecs_string, parts)
    for idx, p in enumerate(parts):
        k = int(p.start + 1e-6) // TD if track.handler != "vide" else None
        if track.handler == "vide":
            if p.independent or not r.segments:
                r.segments.append([])
            r.segments[-1].append(idx)
        else:
            while len(r.segments) <= k:
                r.segments.append([])
            r.segments[k].append(idx)
    return r


class FakeOrigin:
    def __init__(self, workdir: Path, seconds: float = 20, faults: tuple[str, ...] = ()):
        workdir.mkdir(parents=True, exist_ok=True)
        _encode(workdir / "v.mp4", seconds, True)
        _encode(workdir / "a.mp4", seconds, False)
        self.rends = {"video": _load("video", workdir / "v.mp4"), "audio": _load("audio", workdir / "a.mp4")}
        self.faults = set(faults)
        self.t0 = 0.0
        self.wall0 = 0.0
        self.seconds = seconds
        self.httpd: Optional[http.server.ThreadingHTTPServer] = None

    # --- timeline
    def now(self) -> float:
        return time.monotonic() - self.t0

    def available(self, r: Rendition) -> tuple[int, int]:
        """(complete segments, parts available in the next segment) at this instant."""
        t = self.now()
        n_parts = sum(1 for p in r.parts if p.start + p.duration <= t)
        done, acc = 0, 0
        for seg in r.segments:
            if acc + len(seg) > n_parts:
                break
            done += 1
            acc += len(seg)
        return done, n_parts - acc

    def ended(self, r: Rendition) -> bool:
        return self.now() >= r.parts[-1].start + r.parts[-1].duration + 0.01

    # --- rendering
    def pdt(self, t: float, name: str = "") -> str:
        skew = 0.3 if "pdt-skew" in self.faults and name == "audio" else 0.0
        d = datetime.fromtimestamp(self.wall0 + t + skew, timezone.utc)
        return d.strftime("%Y-%m-%dT%H:%M:%S.") + f"{d.microsecond // 1000:03d}Z"

    def playlist(self, name: str, skip: bool) -> str:
        r = self.rends[name]
        pre = name[0] + "-"
        done, extra = self.available(r)
        ended = self.ended(r)
        first = max(0, done - WINDOW)
        lines = ["#EXTM3U", f"#EXT-X-VERSION:{9 if skip else 6}", f"#EXT-X-TARGETDURATION:{TD}"]
        sc = f"CAN-BLOCK-RELOAD=YES,PART-HOLD-BACK={3 * PT:.3f},CAN-SKIP-UNTIL={SKIP_UNTIL:.1f}"
        if "sc-differs" in self.faults and name == "audio":
            sc = sc.replace("CAN-SKIP-UNTIL=6.0", "CAN-SKIP-UNTIL=7.0")
        lines += [f"#EXT-X-SERVER-CONTROL:{sc}", f"#EXT-X-PART-INF:PART-TARGET={PT:.3f}",
                  f"#EXT-X-MEDIA-SEQUENCE:{first}", "#EXT-X-DISCONTINUITY-SEQUENCE:0", f'#EXT-X-MAP:URI="{pre}init.mp4"']
        seg_dur = [sum(r.parts[i].duration for i in r.segments[k]) for k in range(done)]
        skipped = 0
        if skip:
            end = sum(seg_dur[first:done])
            t = 0.0
            for k in range(first, done):
                t += seg_dur[k]
                if end - t >= SKIP_UNTIL - 1e-9 and k - first == skipped:
                    skipped += 1
            if "skip-too-much" in self.faults:
                skipped += 2
            lines.append(f"#EXT-X-SKIP:SKIPPED-SEGMENTS={skipped}")
        for k in range(first + skipped, done):
            seg = r.segments[k]
            lines.append(f"#EXT-X-PROGRAM-DATE-TIME:{self.pdt(r.parts[seg[0]].start, name)}")
            if k >= done - PART_SEGMENTS:
                lines += [self._part_line(r, k, j, i) for j, i in enumerate(seg)]
            lines += [f"#EXTINF:{seg_dur[k]:.5f},", f"{pre}s{k}.m4s"]
        if not ended and done < len(r.segments):
            seg = r.segments[done]
            if extra:
                lines.append(f"#EXT-X-PROGRAM-DATE-TIME:{self.pdt(r.parts[seg[0]].start, name)}")
            lines += [self._part_line(r, done, j, seg[j]) for j in range(extra)]
            lines.append(f'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="{pre}p{done}.{extra}.m4s"')
            for other_name, other in self.rends.items():
                if other_name != name:
                    od, oe = self.available(other)
                    if not od and not oe:
                        continue
                    om, op = (od, oe - 1) if oe else (od - 1, len(other.segments[od - 1]) - 1)
                    if "stale-report" in self.faults and od > 1:
                        om, op = od - 1, 0  # a whole segment behind
                    uri = "video.m3u8" if other_name == "video" else "audio.m3u8"
                    lines.append(f'#EXT-X-RENDITION-REPORT:URI="{uri}",LAST-MSN={om},LAST-PART={op}')
        if ended:
            lines.append("#EXT-X-ENDLIST")
        return "\n".join(lines) + "\n"

    def _part_line(self, r: Rendition, msn: int, j: int, i: int) -> str:
        p = r.parts[i]
        dur = p.duration + (0.02 if "long-part" in self.faults and (msn, j) == (2, 2) else 0)
        ind = ",INDEPENDENT=YES" if p.independent and "no-independent" not in self.faults else ""
        if "wrong-independent" in self.faults and j == 1 and r.name == "video":
            ind = ",INDEPENDENT=YES"
        return f'#EXT-X-PART:DURATION={dur:.5f},URI="{r.name[0]}-p{msn}.{j}.m4s"{ind}'

    def multivariant(self) -> str:
        v, a = self.rends["video"], self.rends["audio"]
        return ("#EXTM3U\n#EXT-X-VERSION:6\n#EXT-X-INDEPENDENT-SEGMENTS\n"
                '#EXT-X-MEDIA:TYPE=AUDIO,GROUP-ID="aac",NAME="main",DEFAULT=YES,AUTOSELECT=YES,CHANNELS="1",'
                'URI="audio.m3u8"\n'
                f'#EXT-X-STREAM-INF:BANDWIDTH=2000000,AVERAGE-BANDWIDTH=1500000,CODECS="{v.codecs},{a.codecs}",'
                'RESOLUTION=640x360,FRAME-RATE=30.000,AUDIO="aac"\nvideo.m3u8\n')

    # --- HTTP
    def start(self) -> "FakeOrigin":
        origin = self

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def log_message(self, *a):  # quiet
                pass

            def do_GET(self):
                status, ctype, body, cc = origin.handle(self.path)
                self.send_response(status)
                self.send_header("Content-Type", ctype)
                self.send_header("Content-Length", str(len(body)))
                self.send_header("Cache-Control", cc)
                if "no-cors" not in origin.faults:
                    self.send_header("Access-Control-Allow-Origin", "*")
                    self.send_header("Access-Control-Expose-Headers", "Age")
                self.end_headers()
                self.wfile.write(body)

        self.httpd = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.httpd.daemon_threads = True
        self.t0, self.wall0 = time.monotonic(), time.time()
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        return self

    def stop(self) -> None:
        if self.httpd:
            self.httpd.shutdown()
            self.httpd.server_close()

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.httpd.server_address[1]}/live/fake/index.m3u8"

    def handle(self, path: str) -> tuple[int, str, bytes, str]:
        u = urlsplit(path)
        q = {k: v[0] for k, v in parse_qs(u.query).items()}
        parts = u.path.split("/")
        if len(parts) < 4 or parts[1] != "live" or parts[2] != "fake":
            return 404, "text/plain", b"not found", "max-age=1"
        leaf = parts[3]
        if leaf == "index.m3u8":
            return 200, "application/vnd.apple.mpegurl", self.multivariant().encode(), "max-age=1"
        if leaf in ("video.m3u8", "audio.m3u8"):
            return self._media_playlist(leaf.split(".")[0], q)
        return self._media(parts[3:])

    def _media_playlist(self, name: str, q: dict) -> tuple[int, str, bytes, str]:
        r = self.rends[name]
        skip = q.get("_HLS_skip") == "YES"
        if "_HLS_part" in q and "_HLS_msn" not in q:
            return 400, "text/plain", b"_HLS_part without _HLS_msn", "max-age=4"
        blocking = "_HLS_msn" in q
        if blocking:
            try:
                msn, part = int(q["_HLS_msn"]), int(q.get("_HLS_part", -1))
            except ValueError:
                return 400, "text/plain", b"bad directive", "max-age=4"
            done, extra = self.available(r)
            if msn > done + 2 or (part >= 0 and msn == done and part > extra - 1 + int(3 / PT)):
                return 400, "text/plain", b"too far ahead", "max-age=4"
            deadline = time.monotonic() + 3 * TD
            while not self.ended(r):
                done, extra = self.available(r)
                if part < 0 and done > msn:
                    break
                if part >= 0 and (done > msn or (done == msn and extra > part)):
                    break
                if "early-return" in self.faults:
                    break
                if time.monotonic() > deadline:
                    return 503, "text/plain", b"timeout", "max-age=1"
                time.sleep(0.005)
        body = self.playlist(name, skip).encode()
        return 200, "application/vnd.apple.mpegurl", body, f"max-age={6 * TD if blocking else 0}"

    def _media(self, path: list[str]) -> tuple[int, str, bytes, str]:
        leaf = path[-1]
        r = {"v": self.rends["video"], "a": self.rends["audio"]}.get(leaf[:1])
        if r is None or leaf[1:2] != "-":
            return 404, "text/plain", b"", "max-age=1"
        ctype = "video/mp4" if r.name == "video" else "audio/mp4"
        body = leaf[2:]
        if body == "init.mp4":
            return 200, ctype, r.init, "max-age=60"
        try:
            if body.startswith("s") and body.endswith(".m4s"):
                msn, idx = int(body[1:-4]), None
            elif body.startswith("p") and body.endswith(".m4s"):
                a, b = body[1:-4].split(".")
                msn, idx = int(a), int(b)
            else:
                return 404, "text/plain", b"", "max-age=1"
        except ValueError:
            return 404, "text/plain", b"", "max-age=1"
        if msn >= len(r.segments) or (idx is not None and idx >= len(r.segments[msn])):
            return 404, "text/plain", b"", "max-age=1"
        wanted = r.segments[msn] if idx is None else [r.segments[msn][idx]]
        deadline = time.monotonic() + 3 * TD
        while True:  # PH1: a hinted (or soon listed) resource blocks until complete
            done, extra = self.available(r)
            have = sum(len(s) for s in r.segments[:done]) + extra
            if max(wanted) < have:
                break
            if time.monotonic() > deadline:
                return 404, "text/plain", b"", "max-age=1"
            time.sleep(0.005)
        data = b"".join(r.parts[i].data for i in wanted)
        return 200, ctype if idx is None else "video/iso.segment" if r.name == "video" else ctype, data, "max-age=60"

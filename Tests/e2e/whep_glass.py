"""Glass-to-glass over WHEP in headless Chromium: `sluice publish testsrc` paints its capture clock into every
picture (taken before encoding) and publishes over RTMP; Chromium plays /whep/KEY and reads the clock back from
each presented frame (requestVideoFrameCallback: expectedDisplayTime minus the painted clock, one machine clock).
Prints one JSON line: the rendition the gateway chose and the glass percentiles. Not a test: a number to quote.

    python3 Tests/e2e/whep_glass.py --bframes 2 --size 640x360 --seconds 20      # B-frames: the WebRTC rung
    python3 Tests/e2e/whep_glass.py --bframes 0 --size 640x360 --seconds 20      # no B-frames: passthrough
    python3 Tests/e2e/whep_glass.py --bframes 2 --size 1280x720 --transcode on   # a ladder rung (Chromium: f4001f)
"""
import argparse
import json
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from procs import ARTIFACTS, FAST_SEGMENTS, SLUICE, Gateway, Publisher, free_port  # noqa: E402

HERE = Path(__file__).resolve().parent


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--bframes", type=int, default=2)
    parser.add_argument("--size", default="640x360")
    parser.add_argument("--seconds", type=float, default=20)
    parser.add_argument("--transcode", default="off")
    args = parser.parse_args()
    workdir = ARTIFACTS / "whep-glass"
    workdir.mkdir(parents=True, exist_ok=True)
    gw = Gateway(workdir, FAST_SEGMENTS + ["--webrtc-port", str(free_port()), "--transcode", args.transcode]).start()
    pub = Publisher([str(SLUICE), "publish", "testsrc", gw.rtmp_url("glass"), "--duration", str(args.seconds + 40),
                     "--size", args.size, "--bframes", str(args.bframes)], workdir / "publisher.log")
    try:
        time.sleep(4)
        out = subprocess.run([sys.executable, str(HERE / "whep_chromium.py"), f"http://127.0.0.1:{gw.http_port}",
                              "glass", "--seconds", str(args.seconds), "--pixel-clock", "--shots", str(workdir)],
                             capture_output=True, text=True, timeout=args.seconds + 120).stdout
        done = [json.loads(l) for l in out.splitlines() if l.startswith("{")][-1]
        print(json.dumps({"bframes": args.bframes, "size": args.size, "transcode": args.transcode,
                          "source": done.get("source"), "frames": done.get("frames"),
                          "seconds": done.get("watchedSeconds"), "firstFrameMs": done.get("firstFrameMs"),
                          "glassMs": done.get("glassMs")}))
        return 0
    finally:
        pub.stop()
        gw.stop()


if __name__ == "__main__":
    sys.exit(main())

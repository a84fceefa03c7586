"""SRT publishers for the end-to-end suite: the Debian ffmpeg CLI and srt-live-transmit (srt-tools), and a
loopback UDP relay that drops packets, so SRT's retransmission is exercised by real peers."""
from __future__ import annotations

import random
import socket
import threading
from typing import Optional


def srt_ffmpeg_cmd(url: str, seconds: float, *, bframes: int = 2, size: str = "1280x720", rate: int = 30) -> list[str]:
    """Debian ffmpeg publishing H.264 (B-frames) + AAC in MPEG-TS over SRT (libsrt's caller)."""
    return ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "warning", "-re",
            "-f", "lavfi", "-i", f"testsrc2=size={size}:rate={rate}",
            "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=48000",
            "-t", str(seconds), "-c:v", "libx264", "-preset", "veryfast", "-bf", str(bframes),
            "-g", str(rate), "-pix_fmt", "yuv420p", "-c:a", "aac", "-b:a", "128k", "-f", "mpegts", url]


def srt_url(port: int, streamid: str, **params: str) -> str:
    """`srt://127.0.0.1:PORT?streamid=...&k=v` (ffmpeg's latency is in µs, srt-live-transmit's in ms)."""
    return f"srt://127.0.0.1:{port}?streamid={streamid}" + "".join(f"&{k}={v}" for k, v in params.items())


class LossyRelay:
    """Forwards UDP between one SRT caller and the gateway, dropping a share of the caller's data packets.

    Control packets (handshake, ACK, NAK) pass: the loss under test is media loss, which SRT must repair within its
    latency window. The first datagram's sender is the caller; everything from the gateway goes back to it.
    """

    def __init__(self, target_port: int, loss: float, seed: int = 19):
        self.target = ("127.0.0.1", target_port)
        self.loss = loss
        self.rng = random.Random(seed)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.port = self.sock.getsockname()[1]
        self.upstream = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.upstream.connect(self.target)
        self.caller: Optional[tuple[str, int]] = None
        self.forwarded = self.dropped = self.data_packets = 0
        self._stop = threading.Event()
        self._threads = [threading.Thread(target=self._from_caller, daemon=True),
                         threading.Thread(target=self._from_gateway, daemon=True)]

    def start(self) -> "LossyRelay":
        for t in self._threads:
            t.start()
        return self

    def _from_caller(self) -> None:
        self.sock.settimeout(0.2)
        while not self._stop.is_set():
            try:
                data, addr = self.sock.recvfrom(65536)
            except socket.timeout:
                continue
            except OSError:
                return
            self.caller = addr
            # draft-sharabayko-srt §3: the first bit is 0 for a data packet, 1 for control.
            if data and not data[0] & 0x80:
                self.data_packets += 1
                if self.rng.random() < self.loss:
                    self.dropped += 1
                    continue
            self.forwarded += 1
            try:
                self.upstream.send(data)
            except OSError:
                pass

    def _from_gateway(self) -> None:
        self.upstream.settimeout(0.2)
        while not self._stop.is_set():
            try:
                data = self.upstream.recv(65536)
            except socket.timeout:
                continue
            except OSError:
                continue
            if self.caller:
                self.sock.sendto(data, self.caller)

    def stop(self) -> None:
        self._stop.set()
        for t in self._threads:
            t.join(2)
        self.sock.close()
        self.upstream.close()

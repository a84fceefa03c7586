"""One loopback UDP socket between one WebRTC peer and the gateway's WebRTC port, for tests that impair the path
(loss on the way in or out, a bottleneck). Subclasses decide what becomes of each datagram."""
from __future__ import annotations

import select
import socket
import threading
from collections import Counter


def classify(datagram: bytes) -> str:
    """RFC 7983 §7 by the first byte; RFC 5761 §4 tells RTCP from RTP by the second."""
    if not datagram:
        return "empty"
    b = datagram[0]
    if b <= 3:
        return "stun"
    if 20 <= b <= 63:
        return "dtls"
    if 128 <= b <= 191:
        return "rtcp" if len(datagram) > 1 and 192 <= datagram[1] <= 223 else "rtp"
    return "other"


class UDPRelay:
    """Forwards both ways; `from_peer` and `from_gateway` (overridden) may drop, delay or count."""

    def __init__(self, gateway_port: int):
        self.gateway = ("127.0.0.1", gateway_port)
        self.sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.sock.bind(("127.0.0.1", 0))
        self.sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4 << 20)
        self.port = self.sock.getsockname()[1]
        self.client = None
        self.forwarded, self.dropped = Counter(), Counter()
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self._run, daemon=True)]

    def __enter__(self):
        for t in self.threads:
            t.start()
        return self

    def __exit__(self, *exc):
        self.stop.set()
        for t in self.threads:
            t.join(5)
        self.sock.close()

    def send_to_gateway(self, datagram: bytes) -> None:
        self.sock.sendto(datagram, self.gateway)

    def send_to_peer(self, datagram: bytes) -> None:
        if self.client is not None:
            self.sock.sendto(datagram, self.client)

    def from_peer(self, datagram: bytes, kind: str) -> None:
        self.send_to_gateway(datagram)

    def from_gateway(self, datagram: bytes, kind: str) -> None:
        self.send_to_peer(datagram)

    def _run(self):
        while not self.stop.is_set():
            ready, _, _ = select.select([self.sock], [], [], 0.1)
            if not ready:
                continue
            try:
                datagram, source = self.sock.recvfrom(65536)
            except OSError:
                return
            if source == self.gateway:
                if self.client is not None:
                    self.from_gateway(datagram, classify(datagram))
                continue
            self.client = source
            self.from_peer(datagram, classify(datagram))

"""A publisher whose timestamps jump mid-stream, over one real RTMP connection: FFmpeg encodes live FLV to a pipe and
this relay sends its tags as RTMP messages (RTMP 1.0 §5.3 chunks, type 0 headers carrying each absolute timestamp).

`--mode restart` is an encoder restarted on the same connection (a restreamer switching sources): at the first
encoder's first keyframe from `--at` seconds on, the relay switches to a second FFmpeg (started 2 s before, so its
first keyframe is ready, and sent paced from there), its timestamps `--back` seconds behind where the first one
stopped, on both tracks. `--mode audio` shifts only the audio track back `--back` seconds from `--at` on (one
encoder). The FFmpeg CLI's own FLV muxer refuses decreasing DTS, hence the relay. SLUICE_RELAY_TRACE=path writes each
media tag sent ("kind ms send-time").

Usage: python3 rtmp_jump_relay.py rtmp://127.0.0.1:PORT/live/KEY --seconds 17 [--mode restart] [--at 10] [--back 20]
"""
from __future__ import annotations

import argparse
import os
import queue
import socket
import struct
import subprocess
import sys
import threading
import time
from typing import Optional
from urllib.parse import urlparse

CHUNK = 4096
# The first encoder's timestamps start here, so a jump of `--back` seconds stays above zero.
FIRST_OFFSET_MS = 30_000


# --- AMF0 (the few types RTMP commands use) ---

def amf(*values) -> bytes:
    out = b""
    for v in values:
        if v is None:
            out += b"\x05"
        elif isinstance(v, bool):
            out += b"\x01" + bytes([v])
        elif isinstance(v, (int, float)):
            out += b"\x00" + struct.pack(">d", float(v))
        elif isinstance(v, str):
            out += b"\x02" + struct.pack(">H", len(v)) + v.encode()
        elif isinstance(v, dict):
            out += b"\x03" + b"".join(struct.pack(">H", len(k)) + k.encode() + amf(x) for k, x in v.items())
            out += b"\x00\x00\x09"
    return out


def amf_read(data: bytes) -> list:
    values, i = [], 0

    def one() -> object:
        nonlocal i
        t = data[i]
        i += 1
        if t == 0x00:
            i += 8
            return struct.unpack(">d", data[i - 8:i])[0]
        if t == 0x01:
            i += 1
            return bool(data[i - 1])
        if t == 0x02:
            n = struct.unpack(">H", data[i:i + 2])[0]
            i += 2 + n
            return data[i - n:i].decode(errors="replace")
        if t in (0x03, 0x08):
            if t == 0x08:
                i += 4
            obj = {}
            while data[i:i + 3] != b"\x00\x00\x09":
                n = struct.unpack(">H", data[i:i + 2])[0]
                i += 2 + n
                name = data[i - n:i].decode(errors="replace")
                obj[name] = one()
            i += 3
            return obj
        if t in (0x05, 0x06):
            return None
        raise ValueError(f"AMF0 type {t}")

    while i < len(data):
        values.append(one())
    return values


# --- RTMP chunks ---

class Connection:
    def __init__(self, url: str):
        u = urlparse(url)
        self.app, self.key = u.path.strip("/").split("/", 1)
        self.tc_url = f"rtmp://{u.hostname}:{u.port or 1935}/{self.app}"
        self.sock = socket.create_connection((u.hostname, u.port or 1935), timeout=10)
        self.sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        self.in_chunk = 128
        self.streams: dict[int, dict] = {}
        self.buf = b""
        self.stream_id = 0
        self.last_send = 0.0
        # SLUICE_RELAY_TRACE=path: every media tag sent, "kind ms" a line (to replay a run's timestamps).
        trace = os.environ.get("SLUICE_RELAY_TRACE")
        self.trace = open(trace, "w") if trace else None

    def _recv(self, n: int) -> bytes:
        while len(self.buf) < n:
            more = self.sock.recv(65536)
            if not more:
                raise ConnectionError("server closed the connection")
            self.buf += more
        out, self.buf = self.buf[:n], self.buf[n:]
        return out

    def handshake(self) -> None:
        c1 = struct.pack(">II", 0, 0) + os.urandom(1528)
        self.sock.sendall(b"\x03" + c1)
        s0s1 = self._recv(1 + 1536)
        self._recv(1536)
        self.sock.sendall(s0s1[1:])

    def send(self, csid: int, type_id: int, timestamp: int, body: bytes, stream_id: int = 0) -> None:
        ext = timestamp >= 0xFFFFFF
        ts = 0xFFFFFF if ext else timestamp
        head = bytes([csid]) + ts.to_bytes(3, "big") + len(body).to_bytes(3, "big") + bytes([type_id])
        head += struct.pack("<I", stream_id) + (struct.pack(">I", timestamp) if ext else b"")
        out = bytearray(head)
        for at in range(0, len(body), CHUNK):
            if at:
                out += bytes([0xC0 | csid]) + (struct.pack(">I", timestamp) if ext else b"")
            out += body[at:at + CHUNK]
        self.sock.sendall(bytes(out))

    def read_message(self) -> tuple[int, bytes]:
        """One whole message from the server: (type id, body)."""
        while True:
            b = self._recv(1)[0]
            fmt, csid = b >> 6, b & 0x3F
            if csid == 0:
                csid = 64 + self._recv(1)[0]
            elif csid == 1:
                lo, hi = self._recv(2)
                csid = 64 + lo + hi * 256
            st = self.streams.setdefault(csid, {"len": 0, "type": 0, "ts": 0, "body": b""})
            if fmt <= 2:
                ts = int.from_bytes(self._recv(3), "big")
                if fmt <= 1:
                    st["len"] = int.from_bytes(self._recv(3), "big")
                    st["type"] = self._recv(1)[0]
                if fmt == 0:
                    self._recv(4)
                if ts == 0xFFFFFF:
                    self._recv(4)
            need = min(self.in_chunk, st["len"] - len(st["body"]))
            st["body"] += self._recv(need)
            if len(st["body"]) >= st["len"]:
                body, st["body"] = st["body"], b""
                if st["type"] == 1:
                    self.in_chunk = struct.unpack(">I", body[:4])[0] & 0x7FFFFFFF
                    continue
                return st["type"], body

    def command(self, *values, stream_id: int = 0) -> None:
        self.send(3 if stream_id == 0 else 8, 20, 0, amf(*values), stream_id)

    def await_command(self, names: set[str]) -> list:
        while True:
            type_id, body = self.read_message()
            if type_id == 20:
                values = amf_read(body)
                if values and values[0] in names:
                    return values
                if values and values[0] == "_error":
                    raise ConnectionError(f"server refused: {values}")

    def publish(self) -> None:
        self.handshake()
        self.send(2, 1, 0, struct.pack(">I", CHUNK))
        self.command("connect", 1, {"app": self.app, "type": "nonprivate", "flashVer": "FMLE/3.0",
                                    "tcUrl": self.tc_url})
        self.await_command({"_result"})
        self.command("createStream", 2, None)
        reply = self.await_command({"_result"})
        self.stream_id = int(reply[3])
        self.command("publish", 3, None, self.key, "live", stream_id=self.stream_id)
        status = self.await_command({"onStatus"})
        info = status[3] if len(status) > 3 and isinstance(status[3], dict) else {}
        if info.get("code") != "NetStream.Publish.Start":
            raise ConnectionError(f"publish refused: {status}")
        # Drain whatever else the server says (acknowledgements) so its writes never block.
        threading.Thread(target=self._drain, daemon=True).start()

    def _drain(self) -> None:
        try:
            while self.sock.recv(65536):
                pass
        except OSError:
            pass

    def media(self, type_id: int, timestamp: int, body: bytes) -> None:
        now = time.monotonic()
        if self.last_send and now - self.last_send > 0.3:
            # Said so the log tells an encoder's own stall (the gateway then splices) from the gateway's.
            print(f"nothing to send for {now - self.last_send:.2f} s before the tag at {timestamp} ms", flush=True)
        self.last_send = now
        if self.trace is not None and type_id in (8, 9) and len(body) > 1 and body[1] != 0:
            self.trace.write(f"{'video' if type_id == 9 else 'audio'} {timestamp} {now:.3f}\n")
        if type_id == 18:
            body = amf("@setDataFrame") + body
        self.send({8: 4, 9: 6, 18: 5}[type_id], type_id, timestamp, body, self.stream_id)


# --- FFmpeg as a live encoder ---

class Encoder:
    """`ffmpeg -re` writing FLV to a pipe; a thread turns it into (type, timestamp ms, body, arrival) tags on a
    queue."""

    def __init__(self, seconds: float, tone: int):
        cmd = ["ffmpeg", "-hide_banner", "-nostdin", "-loglevel", "warning", "-re",
               "-f", "lavfi", "-i", "testsrc2=size=640x360:rate=30",
               "-f", "lavfi", "-i", f"sine=frequency={tone}:sample_rate=48000", "-t", str(seconds),
               "-c:v", "libx264", "-preset", "veryfast", "-tune", "zerolatency", "-g", "30", "-pix_fmt", "yuv420p",
               "-c:a", "aac", "-b:a", "128k", "-flush_packets", "1", "-f", "flv", "pipe:1"]
        print("$ " + " ".join(cmd), flush=True)
        self.proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stdin=subprocess.DEVNULL)
        self.tags: "queue.Queue[Optional[tuple[int, int, bytes, float]]]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self) -> None:
        f = self.proc.stdout
        try:
            f.read(13)
            while True:
                head = f.read(11)
                if len(head) < 11:
                    break
                size = int.from_bytes(head[1:4], "big")
                ts = int.from_bytes(head[4:7], "big") | head[7] << 24
                body = f.read(size)
                f.read(4)
                self.tags.put((head[0], ts, body, time.monotonic()))
        finally:
            self.tags.put(None)

    def stop(self) -> None:
        if self.proc.poll() is None:
            self.proc.terminate()
            self.proc.wait(5)


def is_header(type_id: int, body: bytes) -> bool:
    """Script data and AVC/AAC sequence headers (FLV spec v10.1 §E.4.2.2, §E.4.3.1)."""
    return type_id == 18 or (len(body) > 1 and body[1] == 0)


def is_keyframe(type_id: int, body: bytes) -> bool:
    return type_id == 9 and len(body) > 1 and body[0] >> 4 == 1 and body[1] == 1


def restart(conn: Connection, seconds: float, at: float, back: float) -> None:
    first = Encoder(seconds, 440)
    started = time.monotonic()
    second: Optional[Encoder] = None
    last = 0
    sent = 0
    while (tag := first.tags.get()) is not None:
        type_id, ts, body, _ = tag
        if second is not None and ts >= at * 1000 and is_keyframe(type_id, body):
            # The switch is at the first encoder's keyframe: its last GOP is whole, as when an encoder restarts.
            break
        last = ts + FIRST_OFFSET_MS
        conn.media(type_id, last, body)
        sent += 1
        if second is None and time.monotonic() - started > at - 2:
            # Started ahead so the switch waits for no encoder start-up: its first keyframe is ready by then.
            second = Encoder(seconds - at, 660)
    first.stop()
    if second is None:
        return
    switch = time.monotonic()
    offset: Optional[int] = None
    first_key = 0
    while (tag := second.tags.get()) is not None:
        type_id, ts, body, _ = tag
        if offset is None:
            if is_header(type_id, body):
                conn.media(type_id, last, body)
                continue
            if not is_keyframe(type_id, body):
                continue
            offset = last + 33 - int(back * 1000) - ts
            first_key = ts
            print(f"switching to the second encoder after {last} ms: its first keyframe {ts} ms goes out at "
                  f"{ts + offset} ms ({back} s back)", flush=True)
        # Paced from its first keyframe on: its backlog goes out in real time, as it was encoded, not in a burst.
        time.sleep(max(0.0, switch + (ts - first_key) / 1000 - time.monotonic()))
        conn.media(type_id, ts + offset, body)
        sent += 1
    print(f"sent {sent} tags", flush=True)
    second.stop()


def audio_only(conn: Connection, seconds: float, at: float, back: float) -> None:
    enc = Encoder(seconds, 440)
    shifted = False
    while (tag := enc.tags.get()) is not None:
        type_id, ts, body, _ = tag
        ts += FIRST_OFFSET_MS
        if type_id == 8 and not is_header(type_id, body) and ts - FIRST_OFFSET_MS >= at * 1000:
            if not shifted:
                print(f"audio jumps {back} s back at {ts} ms", flush=True)
                shifted = True
            ts -= int(back * 1000)
        conn.media(type_id, ts, body)
    enc.stop()


def main() -> int:
    p = argparse.ArgumentParser()
    p.add_argument("url")
    p.add_argument("--seconds", type=float, default=17)
    p.add_argument("--mode", choices=("restart", "audio"), default="restart")
    p.add_argument("--at", type=float, default=10)
    p.add_argument("--back", type=float, default=20)
    a = p.parse_args()
    conn = Connection(a.url)
    conn.publish()
    print(f"publishing to {a.url} on stream {conn.stream_id}", flush=True)
    (restart if a.mode == "restart" else audio_only)(conn, a.seconds, a.at, a.back)
    conn.sock.close()
    return 0


if __name__ == "__main__":
    sys.exit(main())

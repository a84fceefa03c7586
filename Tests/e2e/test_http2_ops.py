"""Origin protocols and operations against a real `sluice serve`: HTTP/2 by prior knowledge (h2c) beside HTTP/1.1
on one port, HTTP/2 over TLS (ALPN) with a self-signed certificate made by the openssl CLI, blocking playlist
requests over HTTP/2, /readyz through start-up and shutdown, JSON logs carrying stream and session, config
precedence (file < SLUICE_* environment < flags), and the Grafana dashboard querying only metrics /metrics exposes.
curl (nghttp2) is the HTTP/2 client.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import time
from pathlib import Path

import pytest
import requests

from follower import wait_for_multivariant
from procs import FAST_SEGMENTS, REPO, SLUICE, Gateway, ffmpeg_cmd, free_port
from waiting import eventually

KEY = "e2e-h2"


def _curl(*args: str) -> tuple[str, str, str]:
    """(HTTP version, status, body) of one curl request."""
    if not shutil.which("curl"):
        pytest.skip("curl is not installed")
    out = subprocess.run(["curl", "-s", "--max-time", "10", "-w", "\n%{http_version} %{http_code}", *args],
                         capture_output=True, text=True, timeout=20).stdout
    body, _, tail = out.rpartition("\n")
    version, _, code = tail.partition(" ")
    return version, code, body.strip()


def _with_env(extra: dict[str, str], start):
    old = {k: os.environ.get(k) for k in extra}
    os.environ.update(extra)
    try:
        return start()
    finally:
        for k, v in old.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v


def test_h2c_and_http1_share_the_port_and_blocking_reload_works_over_h2(workdir, publishers):
    env_port = free_port()
    # The flag (--http-port, set by Gateway) beats SLUICE_HTTP_PORT; JSON logs come from the environment.
    gw = _with_env({"SLUICE_HTTP_PORT": str(env_port), "SLUICE_LOG_FORMAT": "json", "SLUICE_HTTP_DRAIN_DELAY_S": "0.5",
                    "SLUICE_HTTP_HTTP2": "true"},
                   lambda: Gateway(workdir, FAST_SEGMENTS + ["--transcode", "off"]).start())
    try:
        base = f"http://127.0.0.1:{gw.http_port}"
        assert gw.http_port != env_port and f"127.0.0.1:{gw.http_port}" in gw.log()
        assert _curl("--http2-prior-knowledge", base + "/readyz") == ("2", "200", "ready")
        assert _curl("--http1.1", base + "/readyz") == ("1.1", "200", "ready")
        assert _curl("--http2-prior-knowledge", base + "/")[:2] == ("2", "200")

        pub = publishers(ffmpeg_cmd(gw.rtmp_url(KEY), 30, size="640x360"))
        assert wait_for_multivariant(gw.hls_url(KEY), 15) is not None, gw.log()[-1500:]
        media = f"{base}/live/{KEY}/video.m3u8"
        version, code, text = _curl("--http2-prior-knowledge", media)
        assert (version, code) == ("2", "200"), text
        hint = re.search(r'#EXT-X-PRELOAD-HINT:TYPE=PART,URI="[^"]*/(\d+)\.(\d+)\.m4s"', text)
        assert hint, text
        msn, part = hint.groups()
        t0 = time.monotonic()
        version, code, text = _curl("--http2-prior-knowledge", f"{media}?_HLS_msn={msn}&_HLS_part={part}")
        waited = time.monotonic() - t0
        assert (version, code) == ("2", "200"), text
        assert re.search(rf'#EXT-X-PART:DURATION=[0-9.]+,URI="[^"]*/{msn}\.{part}\.m4s"', text), text
        print(f"blocking reload over h2c for {msn}.{part}: answered in {waited:.3f} s")
        _head_answers_like_get(f"{media}?_HLS_msn={msn}&_HLS_part={part}",
                               re.search(r'URI="([^"]*\.m4s)"', text).group(1), media)

        # Every line about the stream is JSON carrying its key; the publisher's lines carry its session too.
        lines = [json.loads(line) for line in gw.log().splitlines() if line.startswith("{")]
        about = [e for e in lines if e.get("stream") == KEY]
        assert about and all(e["level"] and e["msg"] and e["time"] for e in about), gw.log()[-1500:]
        assert any(e.get("session") for e in about if "RTMP" in e["msg"]), about
        _metrics_cover_the_dashboard(base)
        pub.stop()
        _readyz_drains_on_shutdown(gw, base)
    finally:
        gw.stop()


def _head_answers_like_get(playlist: str, part_uri: str, media: str) -> None:
    """HEAD (RFC 9110 §9.3.2) on a playlist and a part: GET's status and headers, Content-Length included, no body."""
    from urllib.parse import urljoin
    for url in (playlist, urljoin(media, part_uri)):
        got, head = requests.get(url, timeout=10), requests.head(url, timeout=10)
        assert head.status_code == got.status_code == 200, (url, head.status_code, got.status_code)
        assert head.content == b"", url
        assert int(head.headers["Content-Length"]) == len(got.content), (url, head.headers)
        for h in ("Content-Type", "Cache-Control"):
            assert head.headers.get(h) == got.headers.get(h), (url, h, head.headers, got.headers)


def _metrics_cover_the_dashboard(base: str) -> None:
    exposed = set()
    for line in requests.get(base + "/metrics", timeout=5).text.splitlines():
        m = re.match(r"([a-zA-Z_:][a-zA-Z0-9_:]*)", line)
        if m and not line.startswith("#"):
            exposed.add(m.group(1))
    dashboard = json.loads((REPO / "Config" / "grafana-dashboard.json").read_text())
    exprs = [t["expr"] for p in dashboard["panels"] for t in p.get("targets", [])]
    exprs += [v["definition"] for v in dashboard["templating"]["list"] if v.get("definition")]
    queried = set(re.findall(r"\bsluice_[a-z_]+", " ".join(exprs)))
    assert len(queried) >= 8, queried
    # Counters such as sluice_frames_dropped_total appear on their first increment: those must at least be declared
    # by the Telemetry sources (metric name + unit), so a typo in the dashboard still fails.
    declared = set()
    for src in (REPO / "Sources" / "Telemetry").glob("*.swift"):
        text = src.read_text()
        declared |= {f"{n}_{u}" if u else n for n, u in re.findall(r'metricName: "(sluice_\w+)",\s*unitName: "(\w*)"', text)}
        declared |= {f"{n}_total" for n in re.findall(r'= "(sluice_\w+)"', text)}
    declared |= {f"{n}_{s}" for n in declared for s in ("bucket", "sum", "count")}
    missing = sorted(queried - exposed - declared)
    assert not missing, f"dashboard queries metrics the gateway does not have: {missing}\nexposed: {sorted(exposed)}"
    print(f"dashboard metrics: {sorted(queried & exposed)} exposed; {sorted(queried - exposed)} declared, not yet incremented")
    assert "sluice_hop_latency_seconds_bucket" in queried


def _readyz_drains_on_shutdown(gw: Gateway, base: str) -> None:
    """SIGTERM: /readyz answers 503 `draining` for http.drain_delay_s while the origin still serves, then the port closes."""
    seen = []
    gw.proc.send_signal(signal.SIGTERM)
    end = time.monotonic() + 10
    while time.monotonic() < end:
        try:
            r = requests.get(base + "/readyz", timeout=1)
            seen.append((r.status_code, r.text.strip()))
        except requests.RequestException:
            break
        time.sleep(0.005)
    assert (503, "draining") in seen, f"/readyz during shutdown: {seen[:5]} ... {seen[-5:]}"
    assert (200, "ready") not in seen[seen.index((503, "draining")):]


def test_http2_over_tls_with_alpn(workdir):
    if not shutil.which("openssl"):
        pytest.skip("openssl is not installed")
    cert, key = workdir / "cert.pem", workdir / "key.pem"
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1",
                    "-addext", "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
                   check=True, capture_output=True, timeout=60)
    port, rtmp = free_port(), free_port()
    env = dict(os.environ, SLUICE_HTTP_TLS_CERT=str(cert), SLUICE_HTTP_TLS_KEY=str(key), SLUICE_HTTP_HTTP2="true")
    log = open(workdir / "gateway.log", "wb")
    proc = subprocess.Popen([str(SLUICE), "serve", "--bind", "127.0.0.1", "--rtmp-port", str(rtmp), "--http-port", str(port),
                             "--transcode", "off"], stdout=log, stderr=subprocess.STDOUT, env=env)
    try:
        base = f"https://127.0.0.1:{port}"
        def ready() -> bool:
            assert proc.poll() is None, (workdir / "gateway.log").read_text()
            return _curl("-k", base + "/readyz")[1] == "200"

        eventually(ready, 20, period=0.2)
        assert _curl("-k", "--http2", base + "/readyz") == ("2", "200", "ready")
        assert _curl("-k", "--http1.1", base + "/healthz") == ("1.1", "200", "ok")
        assert _curl("--cacert", str(cert), "--http2", base + "/api/streams") == ("2", "200", "[]")
        assert "https://127.0.0.1:" in (workdir / "gateway.log").read_text()
        # Plain HTTP on the TLS port is refused rather than answered in the clear.
        assert _curl("--http1.1", f"http://127.0.0.1:{port}/healthz")[1] in ("000", "400")
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


def test_config_check_and_print_follow_file_env_flag_precedence(workdir):
    cfg = workdir / "sluice.yaml"
    cfg.write_text("http:\n  port: 1111\nhls:\n  part_target_ms: 250\n")
    env = dict(os.environ, SLUICE_HTTP_PORT="2222")
    out = subprocess.run([str(SLUICE), "config", "print", "--config", str(cfg)], capture_output=True, text=True, env=env)
    assert out.returncode == 0, out.stderr
    assert re.search(r"^http:\n  port: 2222$", out.stdout, re.M) and "part_target_ms: 250" in out.stdout, out.stdout
    ok = subprocess.run([str(SLUICE), "config", "check", str(REPO / "Config" / "sluice.yaml")], capture_output=True, text=True)
    assert ok.returncode == 0 and "ok" in ok.stdout, ok.stderr
    cfg.write_text("log:\n  format: xml\n")
    bad = subprocess.run([str(SLUICE), "config", "check", str(cfg)], capture_output=True, text=True)
    assert bad.returncode == 1 and "log.format" in bad.stderr and "text, logfmt, json" in bad.stderr, bad.stderr
    # The printed configuration is itself a valid config file.
    cfg.write_text(out.stdout)
    again = subprocess.run([str(SLUICE), "config", "check", str(cfg)], capture_output=True, text=True)
    assert again.returncode == 0, again.stderr

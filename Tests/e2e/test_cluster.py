"""Several origins behind one edge (issue 33): a real redis-server, 3 `sluice serve` nodes sharing it as their
stream registry (--cluster-redis, --node-url), and Debian's Varnish with the committed Config/varnish-cluster.vcl
(origin ports substituted) in front.

Three streams are published (FFmpeg over RTMP) to three different origins, each to an origin other than the one the
edge's shard director routes its key to, so every stream reaches its viewers through a relaying node. Checks:
/api/ingest/KEY names the same node through the edge and at every origin (cluster.nodes); the registry lists each key
on its owner (/api/cluster); followers through the edge validate every playlist of all three;
each relaying node fetched each part once (its relay counters); the relay's added delay per part over the owner
(p50/p99, printed with the load average); WHEP at a non-owner is redirected (307) and plays; `kill -9` of an owner,
its publisher reconnecting to another node, and an encoder leaving a node that stays up for another: the edge serves
the new owner's continuation within 5 s (MSNs past everything served before, a DISCONTINUITY), the node left behind
ends its slate early, and stock hls.js left open on the page plays on within 5 s; Redis down: every node keeps
serving its own stream and says so, and registers it again when Redis is back.
"""
from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest
import requests

from e2ecommon import assert_followed_through_edge
from follower import follow
from procs import ARTIFACTS, FAST_SEGMENTS, REPO, SLUICE, Gateway, Publisher, _stop, ffmpeg_cmd, free_port
from varnishedge import VarnishEdge, percentile, probe
from waiting import eventually

HERE = Path(__file__).resolve().parent
NODES = 3
FOLLOW_SECONDS = 12
VIEWERS_PER_STREAM = 7
PUBLISH_SECONDS = 240
# The relay's added delay per part over the owner (issue 33).
RELAY_P50_MS, RELAY_P99_MS = 30, 80

pytestmark = pytest.mark.skipif(
    shutil.which("varnishd") is None or shutil.which("redis-server") is None,
    reason="Debian varnish and redis-server are needed (make deps)")


class Redis:
    """redis-server on a free loopback port, no persistence; restartable on the same port."""

    def __init__(self, workdir: Path):
        self.port = free_port()
        self.workdir = workdir
        self.proc = None
        self.start()

    def start(self) -> None:
        self.log = open(self.workdir / "redis.log", "ab")
        self.proc = subprocess.Popen(
            ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no",
             "--dir", str(self.workdir)], stdout=self.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
        assert eventually(self._pong, 10), "redis-server did not answer PING"

    def _pong(self) -> bool:
        out = subprocess.run(["redis-cli", "-p", str(self.port), "PING"], capture_output=True, text=True)
        return out.stdout.strip() == "PONG"

    def stop(self) -> None:
        if self.proc and self.proc.poll() is None:
            _stop(self.proc, signal.SIGTERM, 10)
        self.log.close()

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}"


def start_cluster_edge(workdir: Path, ports: list[int]) -> VarnishEdge:
    """VarnishEdge's start-up with the cluster VCL (ports substituted) instead of the single-origin one."""
    text = (REPO / "Config" / "varnish-cluster.vcl").read_text()
    for i, port in enumerate(ports, 1):
        marked = re.search(rf'\.port = "\d+";\s+# SUBSTITUTE: origin {i} port', text)
        assert marked, f"substitution marker for origin {i} moved"
        text = text.replace(marked.group(0), f'.port = "{port}";')
    edge = VarnishEdge.__new__(VarnishEdge)
    edge.dir = workdir / "varnish"
    shutil.rmtree(edge.dir, ignore_errors=True)
    edge.dir.mkdir(parents=True)
    edge.vcl = edge.dir / "cluster.vcl"
    edge.vcl.write_text(text)
    edge.port = free_port()
    edge.log = open(edge.dir / "varnishd.log", "wb")
    edge.proc = subprocess.Popen(
        ["varnishd", "-F", "-j", "none", "-n", str(edge.dir / "n"), "-a", f"127.0.0.1:{edge.port}",
         "-f", str(edge.vcl), "-s", "malloc,256m", "-p", "rush_exponent=128", "-p", "thread_pool_min=100",
         "-p", "timeout_idle=75"],
        stdout=edge.log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    ok = eventually(lambda: edge.proc.poll() is None and _status(edge.url("/edge-healthz")) == 200, 30, period=0.2)
    assert ok, (edge.dir / "varnishd.log").read_text()
    edge.fetch_log = edge.dir / "backend.log"
    edge.ncsa = subprocess.Popen(
        ["varnishncsa", "-n", str(edge.dir / "n"), "-b", "-F", "%U%q %s", "-w", str(edge.fetch_log)],
        stdout=subprocess.DEVNULL, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)
    return edge


def _status(url: str, timeout: float = 3) -> int:
    try:
        return requests.get(url, timeout=timeout).status_code
    except requests.RequestException:
        return 0


def _json(url: str, timeout: float = 5):
    try:
        r = requests.get(url, timeout=timeout)
        return r.json() if r.status_code == 200 else None
    except (requests.RequestException, ValueError):
        return None


def load() -> list[str]:
    return open("/proc/loadavg").read().split()[:3]


@pytest.fixture(scope="module")
def cluster():
    workdir = ARTIFACTS / "cluster"
    shutil.rmtree(workdir, ignore_errors=True)
    workdir.mkdir(parents=True)
    redis = Redis(workdir)
    nodes: list[Gateway] = []
    pubs: dict[str, Publisher] = {}
    edge = None
    try:
        for i in range(NODES):
            d = workdir / f"node{i + 1}"
            d.mkdir()
            g = Gateway(d, FAST_SEGMENTS + ["--transcode", "off", "--cluster-redis", redis.url])
            g.extra += ["--node-url", f"http://127.0.0.1:{g.http_port}"]
            nodes.append(g)
        # The edge's backends by name (cluster.nodes), so /api/ingest/KEY asked of any origin follows the shard.
        ring = ",".join(f"origin_{i + 1}=http://127.0.0.1:{g.http_port}" for i, g in enumerate(nodes))
        for g in nodes:
            g.env = {**os.environ, "SLUICE_CLUSTER_NODES": ring}
            g.start()
        edge = start_cluster_edge(workdir, [g.http_port for g in nodes])
        by_port = {g.http_port: i for i, g in enumerate(nodes)}
        # Keys whose shard nodes differ: asked through the edge, /api/ingest/KEY is answered by the shard's node.
        shard: dict[str, int] = {}
        for n in range(40):
            key = f"e2e-cluster-{n}"
            info = _json(edge.url(f"/api/ingest/{key}"))
            assert info, f"/api/ingest/{key} through the edge failed"
            node = by_port[int(info["node"].rsplit(":", 1)[1])]
            if node not in shard.values():
                shard[key] = node
            if len(shard) == NODES:
                break
        assert len(shard) == NODES, f"40 keys covered only shard nodes {sorted(set(shard.values()))}"
        # Each key is published to the node after its shard node: every stream is relayed to its viewers.
        owner = {key: (node + 1) % NODES for key, node in shard.items()}
        for key, i in owner.items():
            pubs[key] = Publisher(ffmpeg_cmd(nodes[i].rtmp_url(key), PUBLISH_SECONDS, size="640x360"),
                                  workdir / f"publisher-{key}.log")
        for key, i in owner.items():
            ok = eventually(lambda: _status(edge.url(f"/live/{key}/video.m3u8"), 12) == 200, 40, period=0.3)
            assert ok, f"{key} never reached the edge:\n{nodes[i].log()[-3000:]}"
        yield dict(workdir=workdir, redis=redis, nodes=nodes, edge=edge, shard=shard, owner=owner, pubs=pubs)
    finally:
        for p in pubs.values():
            if p.proc.poll() is None:
                p.stop()
        if edge is not None:
            edge.stop()
        for g in nodes:
            g.stop()
        redis.stop()


def node_url(g: Gateway, path: str) -> str:
    return f"http://127.0.0.1:{g.http_port}{path}"


def test_ingest_url_of_a_key_is_the_shard_nodes_asked_anywhere(cluster):
    nodes, edge = cluster["nodes"], cluster["edge"]
    keys = [f"e2e-ingest-{n}" for n in range(30)] + list(cluster["owner"])
    differ = []
    for key in keys:
        through_edge = _json(edge.url(f"/api/ingest/{key}"))
        assert through_edge and through_edge["rtmp"].endswith(f"/live/{key}"), through_edge
        for i, g in enumerate(nodes):
            direct = _json(node_url(g, f"/api/ingest/{key}"))
            if direct != through_edge:
                differ.append((key, f"node{i + 1}", direct, through_edge))
    print(f"\n/api/ingest: {len(keys)} keys asked through the edge and of each of {NODES} origins, "
          f"{len(differ)} disagreements")
    assert not differ, differ[:5]


def test_registry_lists_each_stream_on_its_owner(cluster):
    nodes, owner = cluster["nodes"], cluster["owner"]
    for g in nodes:
        listing = _json(node_url(g, "/api/cluster"))
        assert listing and listing["redis"] == "up", listing
        held = {key: n["url"] for n in listing["nodes"] for key in n["keys"]}
        for key, i in owner.items():
            assert held.get(key) == f"http://127.0.0.1:{nodes[i].http_port}", listing
    log = nodes[owner[next(iter(owner))]].log()
    assert "registered to this node" in log, log[-2000:]


def test_viewers_through_the_edge_follow_all_three_streams(cluster):
    edge, owner, shard = cluster["edge"], cluster["owner"], cluster["shard"]
    results: dict[str, object] = {}
    # 21 model players (blocking reloads, then the parts, as hls.js does) beside the validating followers.
    benches = {k: subprocess.Popen(
        [str(SLUICE), "bench", "--viewers", str(VIEWERS_PER_STREAM), "--gateway", edge.url(f"/live/{k}/video.m3u8"),
         "--duration", str(FOLLOW_SECONDS), "--report-json", str(cluster["workdir"] / f"viewers-{k}.json")],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for k in owner}
    threads = [threading.Thread(target=lambda k=k: results.__setitem__(
        k, follow(edge.url(f"/live/{k}/index.m3u8"), FOLLOW_SECONDS, skip_every=0)), daemon=True) for k in owner]
    for t in threads:
        t.start()
    for t in threads:
        t.join(FOLLOW_SECONDS + 60)
    for key, bench in benches.items():
        out, _ = bench.communicate(timeout=FOLLOW_SECONDS + 90)
        report = json.loads((cluster["workdir"] / f"viewers-{key}.json").read_text())
        print(f"\n{key}: {VIEWERS_PER_STREAM} viewers, {report['parts']} parts, {report['errors']} errors of "
              f"{report['requests']} requests")
        assert bench.returncode == 0 and report["activeViewers"] == VIEWERS_PER_STREAM, out[-3000:]
        assert report["parts"] >= VIEWERS_PER_STREAM * FOLLOW_SECONDS * 5 * 0.7, out[-3000:]
        assert report["errors"] <= report["requests"] * 0.01, out[-3000:]
    for key in owner:
        summary = assert_followed_through_edge(results.get(key), min_parts=int(FOLLOW_SECONDS * 5 * 0.6))
        r = requests.get(edge.url(f"/live/{key}/video.m3u8"), timeout=10)
        backend = r.headers.get("X-Sluice-Edge-Backend")
        print(f"\n{key}: owner node{owner[key] + 1}, edge routes it to {backend} (shard node{shard[key] + 1}): {summary}")
        assert backend == f"origin_{shard[key] + 1}", dict(r.headers)


HLSJS_PAGE = """<!doctype html><html><body>
<video id="v" muted autoplay playsinline width="640" height="360"></video>
<script type="module">
window.log = {errors: [], fatal: null};
try {
  await new Promise((ok, fail) => {
    const s = document.createElement('script');
    s.src = new URL('/pages/sluice-player.js', '{src}').href;
    s.onload = ok; s.onerror = () => fail(new Error('no ' + s.src));
    document.head.append(s);
  });
  const Hls = SluicePlayer.hlsFromModule(await import('./hls-chunk.js'));
  // Stock hls.js in low-latency mode, as a third-party page would run it.
  const hls = new Hls({lowLatencyMode: true});
  window.hls = hls;
  hls.on(Hls.Events.ERROR, (e, d) => log.errors.push([d.type, d.details, !!d.fatal, d.frag && d.frag.sn,
    d.part && d.part.index, d.response && d.response.code, d.error && String(d.error.message).slice(0, 80)]));
  hls.on(Hls.Events.FRAG_CHANGED, (e, d) => { log.playing = [d.frag.sn, d.frag.cc]; });
  hls.attachMedia(document.getElementById('v'));
  hls.loadSource('{src}');
} catch (e) { log.fatal = String(e && e.stack || e); }
</script></body></html>"""


# What the hls.js page shows: playback position, the end of what is buffered, errors, latency.
HLSJS_STATE = "const v = document.getElementById('v'); const b = v.buffered; return {t: v.currentTime, " \
              "h: v.videoHeight, end: b.length ? b.end(b.length - 1) : 0, err: v.error && v.error.message, " \
              "ranges: Array.from({length: b.length}, (_, i) => [b.start(i), b.end(i)]), " \
              "log: window.log, latency: window.hls ? window.hls.latency : null};"


def open_hlsjs(cluster, key: str, name: str):
    """Stock hls.js playing KEY through the edge in headless Chromium: (driver, page server), or a pytest skip."""
    from browser import PageServer, headless_chromium, unavailable as no_browser
    import hlsjs
    if no_browser():
        pytest.skip(no_browser())
    try:
        chunk = hlsjs.extract()
    except hlsjs.Unavailable as e:
        pytest.skip(str(e))
    pages = cluster["workdir"] / f"page-{name}"
    pages.mkdir(exist_ok=True)
    shutil.copyfile(chunk, pages / "hls-chunk.js")
    (pages / "index.html").write_text(HLSJS_PAGE.replace("{src}", cluster["edge"].url(f"/live/{key}/index.m3u8")))
    server = PageServer(pages)
    driver = headless_chromium(pages)
    driver.get(server.url("index.html"))
    return driver, server


def test_hlsjs_plays_a_relayed_stream_through_the_edge(cluster):
    owner = cluster["owner"]
    key = list(owner)[1]
    driver, server = open_hlsjs(cluster, key, "relayed")
    try:
        s = eventually(lambda: driver.execute_script(HLSJS_STATE), 40,
                       until=lambda x: x["t"] > 6 or x["log"]["fatal"], period=0.5)
    finally:
        driver.quit()
        server.close()
    print(f"\nhls.js through the edge ({key}, relayed): t={s['t']:.1f} s, {s['h']} lines, latency {s['latency']}, "
          f"errors {s['log']['errors'][:5]}")
    assert not s["log"]["fatal"] and not s["err"], s
    assert s["t"] > 6 and s["h"] == 360, s
    assert not any(e[2] for e in s["log"]["errors"]), s


def test_each_part_is_fetched_once_per_relaying_node(cluster):
    nodes, shard = cluster["nodes"], cluster["shard"]
    for key, i in shard.items():
        stats = _json(node_url(nodes[i], "/api/cluster"))["relay"]
        print(f"\nnode{i + 1} relays {key}: {stats}")
        assert stats["partFetches"] > 50, stats
        assert stats["repeatedPartFetches"] == 0, stats
        assert stats["failures"] == 0, stats


def test_relay_adds_milliseconds_per_part(cluster):
    nodes, owner, shard = cluster["nodes"], cluster["owner"], cluster["shard"]
    key = next(iter(owner))
    before = load()
    p = probe(nodes[owner[key]].http_port, nodes[shard[key]].http_port, f"/live/{key}/video.m3u8", 15)
    n = len(p.samples)
    assert n >= 30, f"only {n} parts probed; failures: {p.failures[:10]}"
    assert len(p.failures) <= max(1, n // 50), p.failures[:10]
    pl = [s.playlist_delay for s in p.samples]
    part = [s.part_delay for s in p.samples]
    line = (f"relay − owner, {n} parts, {len(p.failures)} failures: blocking reload p50 {percentile(pl, .5):.1f} "
            f"p99 {percentile(pl, .99):.1f} max {max(pl):.1f} ms; part p50 {percentile(part, .5):.1f} "
            f"p99 {percentile(part, .99):.1f} max {max(part):.1f} ms (load average before {before}, after {load()})")
    print("\n" + line)
    (cluster["workdir"] / "relay-probe.txt").write_text(line + "\n")
    for xs in (pl, part):
        assert percentile(xs, .5) <= RELAY_P50_MS, line
    # The tail is the scheduler's on a loaded machine (2 cores): judged only when the load is at most 2 per core.
    if float(before[0]) <= 2 * os.cpu_count():
        for xs in (pl, part):
            assert percentile(xs, .99) <= RELAY_P99_MS, line


def test_whep_at_a_non_owner_is_redirected_to_the_owner_and_plays(cluster):
    nodes, owner = cluster["nodes"], cluster["owner"]
    key = next(iter(owner))
    other = nodes[(owner[key] + 2) % NODES]
    owner_url = f"http://127.0.0.1:{nodes[owner[key]].http_port}"
    r = requests.post(node_url(other, f"/whep/{key}"), data=b"v=0\r\n",
                      headers={"Content-Type": "application/sdp"}, allow_redirects=False, timeout=10)
    assert r.status_code == 307 and r.headers.get("Location") == f"{owner_url}/whep/{key}", (r.status_code, r.headers)
    out = subprocess.run([sys.executable, str(HERE / "whep_aiortc.py"), node_url(other, f"/whep/{key}"),
                          "--seconds", "5"], capture_output=True, text=True, timeout=90)
    events = [json.loads(line) for line in out.stdout.splitlines() if line.startswith("{")]
    done = events[-1] if events else {}
    print(f"\nWHEP via node{(owner[key] + 2) % NODES + 1}: {events[:1]} … {done}")
    assert any(e.get("redirected") == f"{owner_url}/whep/{key}" for e in events), out.stdout + out.stderr
    assert done.get("connected") and done.get("videoFrames", 0) > 0, out.stdout[-2000:] + out.stderr[-2000:]


def test_stale_entry_of_a_vanished_owner_is_a_clear_404_without_a_hang(cluster):
    nodes, redis = cluster["nodes"], cluster["redis"]
    # An entry whose node is gone (nothing listens on its port), as a crash leaves it for up to the TTL.
    dead = f"http://127.0.0.1:{free_port()}"
    subprocess.run(["redis-cli", "-p", str(redis.port), "SET", "sluice:stream:e2e-ghost", dead, "PX", "60000"],
                   check=True, capture_output=True)
    try:
        t0 = time.monotonic()
        part = requests.get(node_url(nodes[0], "/live/e2e-ghost/e1/video/3.1.m4s"), timeout=15)
        part_s = time.monotonic() - t0
        t0 = time.monotonic()
        playlist = requests.get(node_url(nodes[0], "/live/e2e-ghost/index.m3u8"), timeout=20)
        playlist_s = time.monotonic() - t0
    finally:
        subprocess.run(["redis-cli", "-p", str(redis.port), "DEL", "sluice:stream:e2e-ghost"], capture_output=True)
    print(f"\nstale entry: part {part.status_code} after {part_s:.2f} s, playlist {playlist.status_code} after "
          f"{playlist_s:.2f} s (the start wait is 8 s)")
    assert part.status_code == 404 and part_s < 2, (part.status_code, part_s)
    # A playlist waits out the start wait (the stream may yet go live somewhere), then 404, never longer.
    assert playlist.status_code == 404 and playlist_s < 8 + 3, (playlist.status_code, playlist_s)
    assert "no answer from the owner" in nodes[0].log() and "stream=e2e-ghost" in nodes[0].log()


def test_a_key_published_at_two_nodes_belongs_to_the_newer_publish(cluster):
    nodes, workdir = cluster["nodes"], cluster["workdir"]
    key = "e2e-twice"
    first, second = nodes[1], nodes[2]
    older = Publisher(ffmpeg_cmd(first.rtmp_url(key), 40, size="320x180"), workdir / f"publisher-{key}-1.log")
    newer = None
    try:
        def holder():
            listing = _json(node_url(nodes[0], "/api/cluster")) or {}
            return next((n["url"] for n in listing.get("nodes", []) if key in n["keys"]), None)

        assert eventually(holder, 20, until=lambda h: h == f"http://127.0.0.1:{first.http_port}"), holder()
        newer = Publisher(ffmpeg_cmd(second.rtmp_url(key), 40, size="320x180"), workdir / f"publisher-{key}-2.log")
        t0 = time.monotonic()
        now = eventually(holder, 20, until=lambda h: h == f"http://127.0.0.1:{second.http_port}")
        print(f"\n{key}: the newer publish (node3) holds the key {time.monotonic() - t0:.2f} s after it started")
        assert now == f"http://127.0.0.1:{second.http_port}", now
        assert "taken over (the newer publish wins)" in second.log(), second.log()[-2000:]
        # The older node finds the newer holder at its next refresh, says so and leaves the entry alone.
        assert eventually(lambda: f"holder=http://127.0.0.1:{second.http_port} stream={key}" in first.log(), 5), \
            first.log()[-2000:]
        time.sleep(2)
        assert holder() == f"http://127.0.0.1:{second.http_port}"
    finally:
        for p in (older, newer):
            if p is not None and p.proc.poll() is None:
                p.stop()


def highest_msn(playlist: str) -> int:
    """The highest MSN a media playlist names: its segments and parts, and its preload hint."""
    msn = int(re.search(r"#EXT-X-MEDIA-SEQUENCE:(\d+)", playlist).group(1))
    segments = sum(1 for line in playlist.splitlines() if line.startswith("#EXTINF"))
    named = [int(m) for m in re.findall(r'URI="[^"]*/(\d+)\.\d+\.m4s"', playlist)]
    return max([msn + segments - 1] + named)


def test_publisher_moving_from_a_live_node_continues_and_that_node_ends_its_slate(cluster):
    nodes, edge, workdir = cluster["nodes"], cluster["edge"], cluster["workdir"]
    by_port = {g.http_port: i for i, g in enumerate(nodes)}
    # A key published at its shard node, so the edge's viewers are served by the node the encoder leaves.
    key = "e2e-moving"
    home = by_port[int(_json(edge.url(f"/api/ingest/{key}"))["node"].rsplit(":", 1)[1])]
    target = (home + 1) % NODES
    publisher = Publisher(ffmpeg_cmd(nodes[home].rtmp_url(key), PUBLISH_SECONDS, size="640x360"),
                          workdir / f"publisher-{key}.log")
    pubs = {key: publisher}
    try:
        assert eventually(lambda: _status(edge.url(f"/live/{key}/video.m3u8"), 12) == 200, 40, period=0.3)
        driver, server = open_hlsjs(cluster, key, "moving")
        try:
            # The encoder drops (the node stays up and airs its slate) and reconnects to another node.
            moved = publisher_moves(cluster, key, target, driver, pubs, leave=lambda: None)
        finally:
            driver.quit()
            server.close()
        retired = eventually(lambda: "stream moved to another node" in nodes[home].log(), 5)
        print(f"node{home + 1} (left by the encoder) ended its own copy early: {retired}; "
              f"edge backend {moved.headers.get('X-Sluice-Edge-Backend')}")
        assert retired, nodes[home].log()[-3000:]
        assert moved.headers.get("X-Sluice-Edge-Backend") == f"origin_{home + 1}", dict(moved.headers)
    finally:
        for p in pubs.values():
            if p.proc.poll() is None:
                p.stop()


def test_killed_owner_its_publisher_reconnects_elsewhere_and_the_edge_serves_again(cluster):
    nodes, owner = cluster["nodes"], cluster["owner"]
    key = next(iter(owner))
    victim = owner[key]
    target = (victim + 1) % NODES
    new_owner = f"http://127.0.0.1:{nodes[target].http_port}"
    # A viewer that keeps its page open across the move: stock hls.js through the edge, playing before the kill.
    driver, server = open_hlsjs(cluster, key, "killed")

    def kill():
        os.kill(nodes[victim].proc.pid, signal.SIGKILL)
        nodes[victim].proc.wait(10)

    try:
        publisher_moves(cluster, key, target, driver, cluster["pubs"], leave=kill)
    finally:
        driver.quit()
        server.close()
    # The registry names the new owner; the dead node's entry expired.
    listing = eventually(lambda: _json(node_url(nodes[target], "/api/cluster")), 10, period=0.2,
                         until=lambda j: j and any(key in n["keys"] and n["url"] == new_owner for n in j["nodes"]))
    assert listing, _json(node_url(nodes[target], "/api/cluster"))
    owner[key] = target


def publisher_moves(cluster, key: str, target: int, driver, pubs: dict, leave):
    """KEY's encoder leaves its node (after `leave()`: the node killed, or nothing) and reconnects to node TARGET at
    once, while hls.js plays KEY through the edge in `driver`. Checks that the edge serves the new owner's playlist
    within 5 s, numbered past every MSN served before with a DISCONTINUITY, and that hls.js plays on within 5 s with
    no fatal error; returns that playlist's response."""
    nodes, edge = cluster["nodes"], cluster["edge"]
    playing = eventually(lambda: driver.execute_script(HLSJS_STATE), 40,
                         until=lambda x: x["t"] > 3 or x["log"]["fatal"], period=0.5)
    assert playing["t"] > 3 and not playing["log"]["fatal"], playing
    # Everything the edge served before the move (what a player may have read), as the old node numbered it.
    before = [requests.get(edge.url(f"/live/{key}/video.m3u8"), timeout=5).text for _ in range(3)]
    served = max(highest_msn(text) for text in before)
    old_epoch = re.search(r'URI="([^/"]+)/video/', before[-1]).group(1)
    at_move = driver.execute_script(HLSJS_STATE)
    buffered = at_move["end"]
    leave()
    pubs[key].stop()
    # The encoder reconnects (to another node, as a TCP balancer would send it) right away.
    reconnect = time.monotonic()
    pubs[key] = Publisher(ffmpeg_cmd(nodes[target].rtmp_url(key), PUBLISH_SECONDS, size="640x360"),
                          cluster["workdir"] / f"publisher-{key}-again.log")

    def fresh_playlist():
        try:
            r = requests.get(edge.url(f"/live/{key}/video.m3u8"), timeout=5)
        except requests.RequestException:
            return None
        # The new owner's playlist (its media URIs carry a new epoch), not a copy of the old node's still cached.
        return r.status_code == 200 and "#EXT-X-PART:" in r.text and f'"{old_epoch}/' not in r.text and r

    r = eventually(fresh_playlist, 20)
    elapsed = time.monotonic() - reconnect
    print(f"\n{key}: publisher moved to node{target + 1}; edge serves its playlist {elapsed:.2f} s after the reconnect "
          f"via {r and r.headers.get('X-Sluice-Edge-Backend')} (load {load()})")
    assert r, nodes[target].log()[-3000:]
    assert elapsed <= 5.0, f"{elapsed:.2f} s"
    (cluster["workdir"] / f"moved-{key}.m3u8").write_text(r.text)
    # The new owner continues the numbering: past every MSN served before, after a discontinuity.
    first = int(re.search(r"#EXT-X-MEDIA-SEQUENCE:(\d+)", r.text).group(1))
    print(f"MSN before the move up to {served}; the new owner's playlist starts at {first}: "
          f"{[line for line in r.text.splitlines() if 'DISCONTINUITY' in line]}")
    assert first > served, r.text
    assert "#EXT-X-DISCONTINUITY\n" in r.text and "#EXT-X-DISCONTINUITY-SEQUENCE:" in r.text, r.text
    assert "continuing the stream another node packaged" in nodes[target].log(), nodes[target].log()[-3000:]
    # The open page plays on: a fragment of the new owner's is playing and the playback position moves on from where
    # it was when that fragment came up (0.3 s), with no fatal error.
    since = {}

    def new_owner_playing(x) -> bool:
        if x["log"]["fatal"] or (x["log"].get("playing") or [0])[0] < first:
            return bool(x["log"]["fatal"])
        since.setdefault("t", x["t"])
        return x["t"] >= since["t"] + 0.3

    resumed = eventually(lambda: driver.execute_script(HLSJS_STATE), 15, period=0.1, until=new_owner_playing)
    resumed_after = time.monotonic() - reconnect
    print(f"hls.js on the same page: buffered to {buffered:.1f} s at the move; playing fragment {resumed['log'].get('playing')}"
          f" (sn, cc) at {resumed['t']:.1f} s, {resumed_after:.2f} s after the reconnect (load {load()}); buffered "
          f"{resumed['ranges']}; errors {resumed['log']['errors'][:14]}")
    assert not resumed["log"]["fatal"] and not resumed["err"], resumed
    assert not any(e[2] for e in resumed["log"]["errors"]), resumed
    assert new_owner_playing(resumed) and resumed_after <= 5.0, (resumed, resumed_after)
    # Forward, never back over what the viewer already saw.
    assert resumed["t"] > at_move["t"], (at_move, resumed)
    return r


def test_redis_down_nodes_keep_serving_their_own_streams_and_register_again(cluster):
    nodes, owner, redis = cluster["nodes"], cluster["owner"], cluster["redis"]
    alive = {key: i for key, i in owner.items() if nodes[i].proc.poll() is None}
    redis.stop()
    time.sleep(3)
    for key, i in alive.items():
        assert _status(node_url(nodes[i], f"/live/{key}/video.m3u8")) == 200, key
    for i in set(alive.values()):
        assert "Redis down" in nodes[i].log(), nodes[i].log()[-2000:]
    redis.start()

    def registered():
        listing = _json(node_url(nodes[next(iter(alive.values()))], "/api/cluster"))
        held = {k for n in (listing or {}).get("nodes", []) for k in n["keys"]}
        return listing if set(alive) <= held else None

    assert eventually(registered, 10, period=0.2), \
        _json(node_url(nodes[next(iter(alive.values()))], "/api/cluster"))
    for i in set(alive.values()):
        assert "Redis answers again" in nodes[i].log(), nodes[i].log()[-2000:]

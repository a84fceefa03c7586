# Sluice cluster edge: Varnish (Debian `varnish`, 7.1+) in front of several Sluice origins that share a stream
# registry in Redis (docs/SCALING.md). Every request naming a stream key is routed by a shard director keyed on that
# key, so one stream's viewers, from every edge, coalesce on one origin; that origin serves the stream itself or
# relays it, each part once, from the node that holds it. The LL-HLS caching rules are Config/varnish-edge.vcl's.
#
#   varnishd -F -a :8081 -f "$PWD/Config/varnish-cluster.vcl" -s malloc,1g -n /tmp/edge \
#            -p rush_exponent=128 -p thread_pool_min=200 -p timeout_idle=75
#   player URL:    http://EDGE:8081/live/<stream key>/index.m3u8
#   publish where viewers go (no relay): GET http://EDGE:8081/api/ingest/<stream key> → the RTMP/SRT/WHIP URLs of
#   the origin this edge routes the key to (the shard's choice, answered by that origin itself).
#
# Origins are plain text: one backend per origin, each added to the shard in vcl_init. The lines marked SUBSTITUTE
# are rewritten by the e2e test (Tests/e2e/test_cluster.py). Every edge must list the same origins with the same
# names, so that every edge routes a key to the same origin.

vcl 4.1;

import directors;

# A node that stops answering /healthz leaves the ring within about 2 s (2 of the last 3 probes, 1 s apart); its
# keys move to the next origin on the ring, which relays them (or serves them once their publisher reconnects there).
probe origin_health {
    .url = "/healthz";
    .interval = 1s;
    .timeout = 1s;
    .window = 3;
    .threshold = 2;
    .initial = 2;
}

# A blocking playlist reload or a preload-hinted part is held by the origin until the part exists (up to 3 × target
# duration, RFC 8216bis §6.2.5.2), and a relaying origin holds it as long as the owner does: the first byte may come
# that late.
backend origin_1 {
    .host = "127.0.0.1";                                     # SUBSTITUTE: origin 1 host
    .port = "8080";                                          # SUBSTITUTE: origin 1 port
    .connect_timeout = 1s;
    .first_byte_timeout = 35s;
    .between_bytes_timeout = 10s;
    .max_connections = 1000;
    .probe = origin_health;
}
backend origin_2 {
    .host = "127.0.0.1";                                     # SUBSTITUTE: origin 2 host
    .port = "8082";                                          # SUBSTITUTE: origin 2 port
    .connect_timeout = 1s;
    .first_byte_timeout = 35s;
    .between_bytes_timeout = 10s;
    .max_connections = 1000;
    .probe = origin_health;
}
backend origin_3 {
    .host = "127.0.0.1";                                     # SUBSTITUTE: origin 3 host
    .port = "8084";                                          # SUBSTITUTE: origin 3 port
    .connect_timeout = 1s;
    .first_byte_timeout = 35s;
    .between_bytes_timeout = 10s;
    .max_connections = 1000;
    .probe = origin_health;
}

sub vcl_init {
    # Consistent hashing (https://varnish-cache.org/docs/7.1/reference/vmod_directors.html#directors-shard): a key
    # stays on its origin while that origin is healthy; adding or removing an origin moves only that origin's keys.
    new cluster = directors.shard();
    cluster.add_backend(origin_1);
    cluster.add_backend(origin_2);
    cluster.add_backend(origin_3);
    cluster.reconfigure();
}

sub vcl_recv {
    if (req.url == "/edge-healthz") {
        return (synth(200, "edge ok"));
    }
    # The shard key: the stream key of /live/KEY/…, /t/TOKEN/live/KEY/…, /whep/KEY, /whip/KEY, /watch/KEY and
    # /api/ingest/KEY; any other URL is its own key (pages, APIs).
    set req.http.X-Sluice-Shard = regsub(
        req.url, "^/(?:t/[^/]+/)?(?:live|whep|whip|watch|api/ingest)/([^/?]+).*$", "\1");
    # Only LL-HLS media and playlists are cached; WHIP/WHEP, the API, pages and CORS preflights go to the origin.
    if ((req.method != "GET" && req.method != "HEAD") || req.url !~ "^/(t/[^/]+/)?live/") {
        return (pass);
    }
    # Nothing in an LL-HLS URL is per viewer; a player's cookie must not turn every request into a pass.
    unset req.http.Cookie;
    return (hash);
}

sub vcl_hash {
    # The whole URL, query included: _HLS_msn, _HLS_part and _HLS_skip name different answers. Not the host.
    hash_data(req.url);
    return (lookup);
}

sub vcl_backend_fetch {
    # The key's origin, or on a retry (that origin refused the connection: killed, not yet marked sick) the next
    # healthy one on the ring, which relays the stream from wherever the registry says it lives.
    set bereq.backend = cluster.backend(by=KEY, key=cluster.key(bereq.http.X-Sluice-Shard), alt=bereq.retries,
        healthy=CHOSEN);
    unset bereq.http.Cookie;
}

sub vcl_backend_error {
    # Only requests without a body can be sent again (a WHEP/WHIP POST's offer is not kept).
    if (bereq.retries < 2 && (bereq.method == "GET" || bereq.method == "HEAD")) {
        return (retry);
    }
}

sub vcl_backend_response {
    # Which origin answered (its backend name), for operators and the e2e test; kept with the cached object.
    set beresp.http.X-Sluice-Edge-Backend = beresp.backend.name;
    if (bereq.url !~ "^/(t/[^/]+/)?live/") {
        return (deliver);
    }
    # Waiters get the bytes as they arrive, not after the whole part is stored.
    set beresp.do_stream = true;
    # A stale playlist sends a player back in time; a stale part is never needed (its URI is immutable).
    set beresp.grace = 0s;
    set beresp.keep = 0s;
    if (beresp.ttl <= 0s || beresp.status >= 500) {
        # `no-cache` (a part asked for before its preload hint) and timeouts: never stored, and no hit-for-miss
        # marker either, so the viewers who ask again in time are collapsed onto one fetch as usual.
        set beresp.ttl = 0s;
        set beresp.uncacheable = true;
        return (deliver);
    }
    # Otherwise the origin's max-age (s-maxage for plain playlists) decides, less the Age a relaying origin's copy
    # already has: 6 × TD for parts and blocking reloads, TD/2 for plain playlists, 1 s for errors.
    return (deliver);
}

sub vcl_deliver {
    # Age comes from Varnish; hls.js reads it (the origin's Access-Control-Expose-Headers: Age is kept).
    if (obj.uncacheable) {
        set resp.http.X-Cache = "PASS";
    } elsif (obj.hits > 0) {
        set resp.http.X-Cache = "HIT";
    } else {
        set resp.http.X-Cache = "MISS";
    }
    unset resp.http.Via;
}

sub vcl_synth {
    set resp.http.Content-Type = "text/plain";
    set resp.body = resp.reason;
    return (deliver);
}

# Sluice CDN edge: Varnish (Debian `varnish`, 7.1+) in front of one or more Sluice origins. The first choice of
# edge: a request parked on an object being fetched is woken the moment the response arrives (nginx's cache lock
# re-checks every 500 ms), and a response is streamed to every waiter while it is still arriving.
#
#   varnishd -F -a :8081 -f "$PWD/Config/varnish-edge.vcl" -s malloc,1g -n /tmp/edge \
#            -p rush_exponent=128 -p thread_pool_min=200 -p timeout_idle=75
#   player URL: http://EDGE:8081/live/<stream key>/index.m3u8
#
# rush_exponent: how many parked requests each delivered one wakes; Varnish's default (3) wakes 200 viewers in
# five rounds, 128 in two. Origins are plain text: edit, or substitute, the lines marked SUBSTITUTE (the e2e test
# Tests/e2e/test_varnish_edge.py rewrites origin A's .host/.port). docs/SCALING.md explains the why.

vcl 4.1;

import directors;

# One backend per origin. A blocking playlist reload or a preload-hinted part is held by the origin until the part
# exists (up to 3 × target duration, RFC 8216bis §6.2.5.2): the first byte may come that late.
backend origin_a {
    .host = "127.0.0.1";                                     # SUBSTITUTE: origin A host
    .port = "8080";                                          # SUBSTITUTE: origin A port
    .connect_timeout = 1s;
    .first_byte_timeout = 35s;
    .between_bytes_timeout = 10s;
    .max_connections = 1000;
    .probe = {
        .url = "/healthz";
        .interval = 2s;
        .timeout = 1s;
        .window = 3;
        .threshold = 2;
    }
}
# A second origin (uncomment, and route stream keys to it in vcl_recv):
# backend origin_b {
#     .host = "10.0.0.12";
#     .port = "8080";
#     .connect_timeout = 1s;
#     .first_byte_timeout = 35s;
#     .between_bytes_timeout = 10s;
# }

sub vcl_init {
    # Routing by a hash of the stream key, for deployments whose publishers reach origins through the same hash
    # (add every origin; a stream then always lives on, and is fetched from, one origin).
    new by_key = directors.hash();
    by_key.add_backend(origin_a, 1.0);
    # by_key.add_backend(origin_b, 1.0);
}

sub vcl_recv {
    if (req.url == "/edge-healthz") {
        return (synth(200, "edge ok"));
    }
    # A stream lives on exactly one origin (the one its publisher pushes to): route by stream key.
    set req.http.X-Sluice-Key = regsub(req.url, "^/(?:live|whep|whip|watch)/([^/?]+).*$", "\1");
    set req.backend_hint = by_key.backend(req.http.X-Sluice-Key);
    # if (req.url ~ "^/live/eu-") { set req.backend_hint = origin_b; }   # keys starting with eu- live on B
    unset req.http.X-Sluice-Key;
    # Only LL-HLS media and playlists are cached; WHIP/WHEP, the API, pages and CORS preflights go to the origin.
    if ((req.method != "GET" && req.method != "HEAD") || req.url !~ "^/live/") {
        return (pass);
    }
    # Nothing in an LL-HLS URL is per viewer; a player's cookie must not turn every request into a pass.
    unset req.http.Cookie;
    return (hash);
}

sub vcl_hash {
    # The whole URL, query included: _HLS_msn, _HLS_part and _HLS_skip name different answers (and viewer tokens,
    # when configured, different viewers). The host does not: every edge name serves the same origin URL.
    hash_data(req.url);
    return (lookup);
}

sub vcl_backend_fetch {
    # The origin answers LL-HLS over HTTP/1.1 keep-alive; Varnish's own Accept-Encoding handling stays default.
    unset bereq.http.Cookie;
}

sub vcl_backend_response {
    if (bereq.url !~ "^/live/") {
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
    # Otherwise the origin's max-age decides (Varnish read it into beresp.ttl): 6 × TD for parts and blocking
    # reloads, TD/2 for plain playlists, 1 s for errors that become valid a moment later.
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

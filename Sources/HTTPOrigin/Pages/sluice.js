// Shared helpers of the Sluice pages (plain JS, no build step). Text always goes in through text nodes, never HTML.
'use strict';
const Sluice = {
  hops: ['ingest', 'decode', 'encode', 'package', 'deliver', 'available'],

  /** Element with attributes and children; strings become text nodes (escaped by construction). */
  el(tag, attrs, ...children) {
    const e = tag === 'svg' || Sluice.svgTags.has(tag)
      ? document.createElementNS('http://www.w3.org/2000/svg', tag) : document.createElement(tag);
    for (const [k, v] of Object.entries(attrs || {})) {
      if (v == null) continue;
      if (k.startsWith('on')) e.addEventListener(k.slice(2), v); else e.setAttribute(k, v);
    }
    for (const c of children.flat()) if (c != null) e.append(c instanceof Node ? c : String(c));
    return e;
  },
  svgTags: new Set(['path', 'line', 'text', 'g', 'rect', 'polyline', 'title']),

  /** Values the server put in <script id="config" type="application/json">. */
  config() {
    const n = document.getElementById('config');
    try { return n ? JSON.parse(n.textContent) : {}; } catch (e) { return {}; }
  },

  async streams() {
    const r = await fetch('/api/streams', {cache: 'no-store'});
    if (!r.ok) throw new Error('GET /api/streams: HTTP ' + r.status);
    return r.json();
  },

  /** `/api/recordings/usage`: {recordings, bytes, recordingNow: {key: id}, newest: [row]}; null when it fails. */
  async recordings() {
    const r = await fetch('/api/recordings/usage', {cache: 'no-store'});
    return r.ok ? r.json() : null;
  },
  bytes(n) {
    if (n == null) return '–';
    return n >= 1e9 ? (n / 1e9).toFixed(2) + ' GB' : n >= 1e6 ? (n / 1e6).toFixed(1) + ' MB' : Math.round(n / 1e3) + ' kB';
  },

  watchURL: key => '/watch/' + encodeURIComponent(key),
  recordingURL: (key, id) => '/watch/' + encodeURIComponent(key) + '?recording=' + encodeURIComponent(id),
  playlistURL: key => '/live/' + encodeURIComponent(key) + '/index.m3u8',
  dashboardURL: key => '/dashboard?stream=' + encodeURIComponent(key),

  ms(v) { return v == null || !isFinite(v) ? '–' : v < 10 ? v.toFixed(1) : String(Math.round(v)); },
  rate(bps) {
    if (!bps) return '–';
    return bps >= 1e6 ? (bps / 1e6).toFixed(2) + ' Mb/s' : Math.round(bps / 1e3) + ' kb/s';
  },

  /** The publisher's codecs from `source`: "hevc hvc1.1.6.L93.90 + aac mp4a.40.2"; '' before any track. */
  sourceCodecs(stream) {
    const c = stream.source || {};
    return [[c.videoFormat, c.video], [c.audioFormat, c.audio]]
      .map(([f, s]) => [f, s].filter(x => x).join(' ')).filter(x => x).join(' + ');
  },

  /** E-RTMP multitrack tracks received but not served (`otherVideoTracks`): "track 1 hvc1, track 2 av01"; '' if none. */
  otherTracks(stream) {
    return (stream.otherVideoTracks || []).map(t => 'track ' + t.trackID + ' ' + t.codec).join(', ');
  },

  /** One hop of a stream: the rendition where it is worst at p50 (encode differs per rung; the rest sit on the source). */
  hop(stream, hop) {
    let best = null;
    for (const r of stream.renditions || []) {
      const h = r.hops && r.hops[hop];
      if (h && h.count > 0 && (!best || h.p50Ms > best.p50Ms)) best = Object.assign({rendition: r.name}, h);
    }
    if (!best && hop === 'package' && stream.packageP50Ms != null) {
      best = {rendition: 'video', p50Ms: stream.packageP50Ms, p99Ms: stream.packageP99Ms, count: stream.packageSamples};
    }
    return best;
  },

  /** Runs `tick` now and every `ms`, reporting success or failure in `statusNode`. */
  poll(ms, tick, statusNode) {
    const run = async () => {
      try {
        await tick();
        statusNode.className = 'status';
        statusNode.textContent = 'updated ' + new Date().toLocaleTimeString();
      } catch (e) {
        statusNode.className = 'status error';
        statusNode.textContent = String(e.message || e);
      }
    };
    run();
    return setInterval(run, ms);
  },
};

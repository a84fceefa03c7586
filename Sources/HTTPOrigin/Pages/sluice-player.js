// How Sluice's pages play with hls.js: the settings, finding the Hls class, and holding the live edge. The watch page
// and `sluice bench --player hlsjs` both load this file, so the bench measures what a viewer of /watch sees.
'use strict';
const SluicePlayer = {
  /** hls.js settings. Its own catch-up is off (maxLiveSyncPlaybackRate 1): it speeds up only with more than 1 s
   * buffered, which a sub-second target never has, so `LiveKeeper` does it. A stall raises the target by 0.25 s. */
  hlsConfig() {
    return {lowLatencyMode: true, backBufferLength: 30, maxLiveSyncPlaybackRate: 1, liveSyncOnStallIncrease: 0.25};
  },

  /** The Hls class from an ES module: its default export, an `Hls` export, or a helper whose result's constructor is
   * Hls (the gradio chunk's exports are minified names). */
  hlsFromModule(mod) {
    const isHls = C => typeof C === 'function' && C.Events && C.prototype && 'currentLevel' in C.prototype;
    for (const v of [mod.default, mod.Hls, ...Object.values(mod)]) if (isHls(v)) return v;
    for (const f of Object.values(mod)) {
      if (typeof f !== 'function' || f.length < 2) continue;
      let probe = null;
      try { probe = f(document.createElement('video'), 'data:application/vnd.apple.mpegurl,'); } catch (e) { continue; }
      const C = probe && probe.constructor;
      try { if (probe && probe.destroy) probe.destroy(); } catch (e) { /* a probe only */ }
      if (isHls(C)) return C;
    }
    throw new Error('no Hls class among the module exports');
  },

  /** A classic script defining window.Hls, else an ES module (.mjs and .js modules go through import()). */
  async loadHls(url) {
    if (!/\.mjs([?#]|$)/.test(url)) {
      await new Promise(resolve => {
        const s = document.createElement('script');
        s.src = url;
        s.onload = s.onerror = () => resolve();
        document.head.append(s);
      });
      if (window.Hls) return window.Hls;
    }
    return SluicePlayer.hlsFromModule(await import(url));
  },

  /** Starts the browser's own HLS player on `src` afresh (after an error: Chromium's quits on a playlist younger
   * than its start-up, see the watch page). */
  restartNative(video, src) {
    video.removeAttribute('src');
    video.load();
    video.src = src;
    video.play().catch(() => {});
  },

  /** Seconds buffered ahead of the play head. */
  bufferAhead(video) {
    const b = video.buffered;
    for (let i = 0; i < b.length; i++) {
      if (b.start(i) <= video.currentTime + 0.05 && video.currentTime <= b.end(i)) return b.end(i) - video.currentTime;
    }
    return 0;
  },
};

/** Holds a live hls.js player at hls.js's own target latency (PART-HOLD-BACK plus its stall increases). A player
 * lands behind that target by its start-up time (playlist, init, parts, append: 0.2–0.4 s) and after a stall; it
 * plays at up to 1.25× while it has buffer to spend, and jumps to hls.js's live position when a whole TARGETDURATION
 * behind. hls.js never takes back its stall increases; after `FORGIVE_MS` without a stall the keeper does.
 * Call `tick()` every 250 ms. */
class LiveKeeper {
  static FORGIVE_MS = 20000;

  constructor(hls, video) {
    this.hls = hls;
    this.video = video;
    this.jumps = 0;
    this.lastJump = 0;
    this.catchingUp = false;
    this.lastStall = performance.now();
    // The viewer went back (a DVR window allows it): keeping pauses until they are live again. Only a viewer moves
    // the play head backwards; the keeper and hls.js only ever move it forwards.
    this.rewound = false;
    this.lastTime = 0;
    video.addEventListener('waiting', () => { if (video.currentTime > 0) this.lastStall = performance.now(); });
    video.addEventListener('seeking', () => this.noteSeek());
  }

  noteSeek() {
    const t = this.video.currentTime;
    if (t < this.lastTime - 1) this.rewound = true;
    this.lastTime = t;
  }

  /** What the keeper is doing now: 'jumped', 'catching up', 'behind live (DVR)' or ''. */
  get why() {
    if (this.rewound) return 'behind live (DVR)';
    if (performance.now() - this.lastJump < 2000) return 'jumped to live';
    return this.catchingUp ? 'catching up to live' : '';
  }

  tick() {
    const h = this.hls, v = this.video, d = h && h.latestLevelDetails;
    this.noteSeek();
    if (!d || !d.live || v.paused || !(h.latency > 0) || h.targetLatency == null) return this.rate(1);
    const now = performance.now();
    const base = d.partHoldBack || d.holdBack || 0;
    if (base > 0 && h.targetLatency > base + 0.01 && now - this.lastStall > LiveKeeper.FORGIVE_MS) {
      // hls.js's setter: the new target, and its stall count back to zero.
      h.targetLatency = base;
      this.lastStall = now;
    }
    const behind = h.latency - h.targetLatency;
    if (this.rewound) {
      // Back within a second of the live position (the viewer returned): keep the edge again. hls.js's own
      // `latency` lags a seek until the next timeupdate, so the distance is measured from the play head.
      const sync = h.liveSyncPosition;
      if (sync == null || sync - v.currentTime > 1) return this.rate(1);
      this.rewound = false;
    }
    if (behind > d.targetduration + 0.5 && h.liveSyncPosition != null && now - this.lastJump > 3000) {
      this.lastJump = now;
      this.jumps += 1;
      v.currentTime = h.liveSyncPosition;
      return this.rate(1);
    }
    const ahead = SluicePlayer.bufferAhead(v);
    // Start above 0.06 s behind, stop at 0.01 s: no rate flapping around the target. Behind the edge is not buffer
    // (parts late under load leave both the latency high and the buffer thin): spend only buffer above 0.35 s.
    if (behind > 0.06 && ahead > 0.5) this.catchingUp = true;
    if (behind < 0.01 || ahead < 0.35) this.catchingUp = false;
    // In 0.05 steps: a new rate every tick would restart the audio resampler each time.
    this.rate(this.catchingUp ? Math.min(1.25, Math.max(1.05, Math.round((1 + behind / 2) * 20) / 20)) : 1);
  }

  rate(r) {
    const v = this.video;
    if (v.playbackRate !== r && v.playbackRate !== 0) v.playbackRate = r;
  }
}

import ArgumentParser
import Foundation
import HTTPClient

/// `sluice stats [URL]`: one screen per stream from `GET /api/streams`, like a WebRTC stats string.
struct StatsCommand: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "stats",
        abstract: "Live per-stream report: codec, size, fps and bit rate per rung, per-hop p50/p99, drops, viewers."
    )

    @Argument(help: "Gateway base URL.")
    var url: String = "http://127.0.0.1:8080"

    @Flag(help: "Print one report and exit.")
    var once = false

    @Option(help: "Seconds between refreshes.")
    var interval: Double = 1

    func validate() throws {
        guard interval > 0 else { throw ValidationError("--interval must be positive") }
        guard endpoint != nil else { throw ValidationError("not an http(s)://HOST[:PORT] URL: \(url)") }
    }

    /// `GET /api/streams` on the gateway at `url`.
    private var endpoint: HTTPLocation? { HTTPLocation(url)?.resolving("/api/streams") }

    /// `GET /api/whep`: the WebRTC viewers; empty when the gateway has no such endpoint or no viewers.
    private func whepViewers(_ client: HTTPClient) async -> [StatsWHEPViewer] {
        guard let location = HTTPLocation(url)?.resolving("/api/whep"),
            let response = try? await client.request("GET", location), response.status == 200
        else { return [] }
        return (try? JSONDecoder().decode([StatsWHEPViewer].self, from: Data(response.body))) ?? []
    }

    func run() async throws {
        guard let endpoint else { throw ValidationError("not an http(s)://HOST[:PORT] URL: \(url)") }
        let client = HTTPClient(timeout: .seconds(5), userAgent: "sluice-stats")
        // In a terminal the screen refreshes in place; piped output gets plain blocks, one per refresh.
        let tty = isatty(STDOUT_FILENO) == 1 && !once
        while true {
            let text: String
            do {
                let response = try await client.request("GET", endpoint)
                guard response.status == 200 else {
                    throw ValidationError("GET \(endpoint) answered \(response.status)")
                }
                let streams = try JSONDecoder().decode([StatsStream].self, from: Data(response.body))
                text = StatsScreen.render(streams, whep: await whepViewers(client), source: endpoint.description)
            } catch {
                if once { throw error }
                text = "sluice stats: \(endpoint): \(error)\n"
            }
            FileHandle.standardOutput.write(Data(((tty ? "\u{1B}[H\u{1B}[2J" : "") + text).utf8))
            if once { return }
            try await Task.sleep(for: .milliseconds(Int64(interval * 1000)))
        }
    }
}

/// The `/api/streams` fields the report shows (StreamSummary's JSON; unknown fields are ignored).
struct StatsStream: Decodable {
    var key: String
    var state: String
    var onAir: String?
    var switches: Int?
    var backup: Bool?
    var partTarget: Double
    var lastMSN: Int?
    var viewers: Int?
    var blockingRequestsWaiting: Int?
    var framesDropped: Int?
    var renditions: [StatsRendition]?
    var source: StatsSource?
    var webrtc: StatsWebRTC?
    var srt: StatsSRT?
    var notes: [String]?
}

/// The publisher's codecs (`/api/streams` `source`): format name and CODECS string per track.
struct StatsSource: Decodable {
    var videoFormat: String?
    var video: String?
    var audioFormat: String?
    var audio: String?

    /// `hevc hvc1.1.6.L93.90 + aac mp4a.40.2`: the format names a reader knows, then the exact strings.
    var line: String {
        [(videoFormat, video), (audioFormat, audio)].compactMap { format, codec in
            format.map { f in codec.map { "\(f) \($0)" } ?? f } ?? codec
        }.joined(separator: " + ")
    }
}

/// An SRT publisher's link figures (`/api/streams` `srt`), as libsrt reports them.
struct StatsSRT: Decodable {
    var sessions: Int
    var rttMs: Double
    var latencyMs: Int
    var receiveBitsPerSecond: Double
    var packetsReceived: Int
    var packetsLost: Int
    var packetsRetransmitted: Int
    var packetsDropped: Int
}

/// A WHIP publisher's RTP receive counters (`/api/streams` `webrtc`), per media kind.
struct StatsWebRTC: Decodable {
    /// The counters shown, in webrtc-stats terms.
    struct Counts: Decodable {
        var packetsReceived: Int
        var packetsLost: Int
        var packetsUnrecovered: Int
        var nacksSent: Int
        var retransmissionsReceived: Int
        var plisSent: Int
    }

    var sessions: Int
    var kinds: [String: Counts]
}

/// One WHEP viewer of `/api/whep` (WHEPViewerReport's JSON).
struct StatsWHEPViewer: Decodable {
    var stream: String
    var video: String
    var phase: String
    var rttMs: Double?
    var fractionLost: Double
    var estimatedKbps: Int?
    var videoPacketsSent: Int
    var audioPacketsSent: Int
    var packetsDropped: Int
    var nackedPackets: Int
    var retransmittedPackets: Int
    var keyframeRequests: Int
}

/// One rendition of `/api/streams`.
struct StatsRendition: Decodable {
    var name: String
    var kind: String
    var codec: String
    var width: Int?
    var height: Int?
    var sampleRate: Int?
    var fps: Double
    var bitRate: Int
    var framesDropped: Int
    var framesDroppedBy: [String: Int]
    var hops: [String: StatsHop]
}

/// Percentiles of one hop, milliseconds.
struct StatsHop: Decodable {
    var count: Int
    var p50Ms: Double
    var p99Ms: Double
}

/// Renders the report as fixed-width text.
enum StatsScreen {
    /// Hop columns in pipeline order.
    static let hops = ["ingest", "decode", "encode", "package", "deliver", "available"]

    static func render(_ streams: [StatsStream], whep: [StatsWHEPViewer] = [], source: String) -> String {
        var lines = ["sluice stats  \(source)  \(Date().formatted(.iso8601))", ""]
        if streams.isEmpty { lines.append("no streams") }
        for s in streams {
            lines.append(
                "\(s.key)  \(s.state)  viewers \(s.viewers ?? 0)  waiting \(s.blockingRequestsWaiting ?? 0)  "
                    + "drops \(s.framesDropped ?? 0)  part \(fixed(s.partTarget, 3)) s  msn \(s.lastMSN.map(String.init) ?? "-")"
            )
            if let onAir = s.onAir {
                let standby = s.backup == true ? "  backup standing by" : ""
                lines.append("  on air: \(onAir)  switches \(s.switches ?? 0)\(standby)")
            }
            if let codecs = s.source { lines.append("  source: \(codecs.line)") }
            let header =
                pad("rendition", 10) + pad("codec", 16) + pad("size", 11) + lpad("fps", 6) + lpad("kbps", 7)
                + hops.map { lpad($0, 13) }.joined() + lpad("drops", 7)
            lines.append("  " + header)
            for r in s.renditions ?? [] {
                let size =
                    r.width.flatMap { w in r.height.map { "\(w)x\($0)" } } ?? r.sampleRate.map { "\($0) Hz" } ?? "-"
                var row = pad(r.name, 10) + pad(r.codec, 16) + pad(size, 11) + lpad(fixed(r.fps, 1), 6)
                row += lpad("\(r.bitRate / 1000)", 7)
                row += hops.map { h in lpad(r.hops[h].map { "\(fixed($0.p50Ms, 1))/\(fixed($0.p99Ms, 1))" } ?? "-", 13)
                }.joined()
                row += lpad("\(r.framesDropped)", 7)
                lines.append("  " + row)
            }
            let drops = (s.renditions ?? []).flatMap { r in
                r.framesDroppedBy.filter { $0.value > 0 }.sorted { $0.key < $1.key }.map {
                    "\(r.name)/\($0.key)=\($0.value)"
                }
            }
            if !drops.isEmpty { lines.append("  dropped by reader: " + drops.joined(separator: " ")) }
            if let w = s.webrtc {
                // The WHIP transport's repair work: what was lost, what NACK got back, what PLI had to cover.
                let kinds = w.kinds.sorted { $0.key > $1.key }.map { k, c in
                    "\(k) rx \(c.packetsReceived) lost \(c.packetsLost) nack \(c.nacksSent) rtx \(c.retransmissionsReceived) "
                        + "unrecovered \(c.packetsUnrecovered) pli \(c.plisSent)"
                }
                lines.append("  webrtc: \(w.sessions) session(s)  " + kinds.joined(separator: "  |  "))
            }
            let viewers = whep.filter { $0.stream == s.key }
            if !viewers.isEmpty {
                // WebRTC playback: per viewer what it gets, its round trip and loss, and the repair work it caused.
                lines.append("  whep: \(viewers.count) viewer(s)")
                for v in viewers {
                    let rtt = v.rttMs.map { "\(fixed($0, 1)) ms" } ?? "-"
                    let estimate = v.estimatedKbps.map { "\($0) kb/s" } ?? "-"
                    lines.append(
                        "    \(pad(v.video, 12)) \(pad(v.phase, 19)) rtt \(lpad(rtt, 9))  loss \(fixed(v.fractionLost * 100, 1))%  "
                            + "estimate \(lpad(estimate, 11))  "
                            + "sent \(v.videoPacketsSent)/\(v.audioPacketsSent)  nack \(v.nackedPackets) rtx \(v.retransmittedPackets)  "
                            + "pli \(v.keyframeRequests)  dropped \(v.packetsDropped)"
                    )
                }
            }
            if let t = s.srt {
                // SRT's repair work inside its latency window: lost, retransmitted, and given up (media lost).
                lines.append(
                    "  srt: \(t.sessions) session(s)  rtt \(fixed(t.rttMs, 1)) ms  latency \(t.latencyMs) ms  "
                        + "rx \(t.packetsReceived) lost \(t.packetsLost) rtx \(t.packetsRetransmitted) "
                        + "dropped \(t.packetsDropped)  \(fixed(t.receiveBitsPerSecond / 1e6, 2)) Mb/s"
                )
            }
            for note in s.notes ?? [] { lines.append("  note: \(note)") }
            lines.append("  hops: p50/p99 ms")
            lines.append("")
        }
        return lines.joined(separator: "\n") + "\n"
    }

    static func fixed(_ v: Double, _ digits: Int) -> String { String(format: "%.\(digits)f", v) }
    static func pad(_ s: String, _ w: Int) -> String {
        s.count >= w ? s + " " : s + String(repeating: " ", count: w - s.count)
    }
    static func lpad(_ s: String, _ w: Int) -> String {
        s.count >= w ? " " + s : String(repeating: " ", count: w - s.count) + s
    }
}

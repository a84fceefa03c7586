import Foundation

/// Per-hop percentiles of one rendition read from a gateway's `GET /api/streams` JSON.
enum GatewayHops {
    /// Gateway hops in pipeline order, as Telemetry names them (`Hop.rawValue`).
    static let order = ["ingest", "decode", "encode", "package", "deliver"]

    /// Hops of `rendition` of `stream`, falling back to the source (`video`) for hops a rung does not have
    /// (ingest and decode happen once, before the ladder). Reads `[{key, renditions: [{name, hops}]}]`.
    static func parse(json: [UInt8], stream: String, rendition: String) -> [String: LatencyPercentiles] {
        guard let root = try? JSONSerialization.jsonObject(with: Data(json)) as? [[String: Any]],
            let entry = root.first(where: { $0["key"] as? String == stream }),
            let renditions = entry["renditions"] as? [[String: Any]]
        else { return [:] }
        var out: [String: LatencyPercentiles] = [:]
        for name in [rendition, "video"] {
            guard let r = renditions.first(where: { $0["name"] as? String == name }),
                let hops = r["hops"] as? [String: Any]
            else { continue }
            for (hop, value) in hops where out[hop] == nil {
                guard let v = value as? [String: Any], let p50 = number(v["p50Ms"]), let p90 = number(v["p90Ms"]),
                    let p99 = number(v["p99Ms"])
                else { continue }
                out[hop] = LatencyPercentiles(count: Int(number(v["count"]) ?? 0), p50Ms: p50, p90Ms: p90, p99Ms: p99)
            }
        }
        return out
    }

    private static func number(_ v: Any?) -> Double? {
        (v as? Double) ?? (v as? Int).map(Double.init) ?? (v as? NSNumber)?.doubleValue
    }
}

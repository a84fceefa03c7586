/// What the gateway takes in and gives out: the one list the start-up banner and the CLI's help read, so neither
/// can drift from the product again.
public enum GatewayProtocols {
    /// Ingest protocols, as users name them.
    public static let ingest = ["RTMP(S)", "WebRTC (WHIP)", "SRT"]
    /// Egress protocols.
    public static let egress = ["LL-HLS", "WebRTC (WHEP)"]

    /// `RTMP(S), WebRTC (WHIP) and SRT in, LL-HLS and WebRTC (WHEP) out`.
    public static var summary: String { "\(list(ingest)) in, \(list(egress)) out" }

    /// `a`, `a and b`, `a, b and c`.
    public static func list(_ names: [String]) -> String {
        guard let last = names.last else { return "" }
        return names.count == 1 ? last : names.dropLast().joined(separator: ", ") + " and " + last
    }
}

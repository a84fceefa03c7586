import MediaCore
import SRTIngest

extension SluiceConfiguration {
    /// SRT ingest UDP port (`srt.port`, `--srt-port`); 0 turns SRT off.
    public var srtPort: Int {
        get { srt.port }
        set { srt.port = newValue }
    }

    /// The `srt` section: listener port, latency window, passphrase, key length, session limit.
    static func readSRT(_ r: inout ConfigReader, into c: inout SluiceConfiguration) throws {
        c.srt.port = try r.int("port", in: 0...65535) ?? c.srt.port
        if let ms = try r.int("latency_ms", in: 20...8000) { c.srt.latency = .milliseconds(ms) }
        if let p = try r.string("passphrase") { c.srt.passphrase = p.isEmpty ? nil : p }
        c.srt.keyLength = try r.int("key_length", in: 16...32) ?? c.srt.keyLength
        c.srt.maxSessions = try r.int("max_sessions", in: 1...10_000) ?? c.srt.maxSessions
    }

    /// Rules the flags must keep too (`--srt-port`): libsrt's passphrase length and AES key sizes.
    func validateSRT() throws {
        guard (0...65535).contains(srt.port) else {
            throw ConfigurationError(key: "srt.port", allowed: "an integer in 0...65535", found: "\(srt.port)")
        }
        if let p = srt.passphrase, !SRTIngestConfiguration.passphraseLengths.contains(p.count) {
            throw ConfigurationError(
                key: "srt.passphrase",
                allowed: "10 to 79 characters (libsrt), or empty for no encryption",
                found: "\(p.count) characters"
            )
        }
        guard [16, 24, 32].contains(srt.keyLength) else {
            throw ConfigurationError(key: "srt.key_length", allowed: "16, 24 or 32 (bytes)", found: "\(srt.keyLength)")
        }
    }

    /// The printed `srt` section (`sluice config print`); the passphrase itself is never printed.
    var srtTree: ConfigNode {
        .map([
            .init(key: "port", value: .int(srt.port)),
            .init(key: "latency_ms", value: .int(Int(srt.latency.milliseconds))),
            .init(key: "passphrase", value: .string(srt.passphrase == nil ? "" : "(set)")),
            .init(key: "key_length", value: .int(srt.keyLength)),
            .init(key: "max_sessions", value: .int(srt.maxSessions)),
        ])
    }
}

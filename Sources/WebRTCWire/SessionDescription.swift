/// RFC 8866 §5: an SDP session description kept as ordered `<type>=<value>` lines, session part then media sections.
public struct SessionDescription: Equatable, Sendable {
    /// Lines before the first `m=` (starting with `v=0`).
    public var sessionLines: [SDPLine]
    /// The media sections in order.
    public var media: [SDPMediaSection]

    /// Offers larger than this are refused before parsing (RFC 9725 leaves the limit to the server).
    public static let defaultSizeLimit = 64 * 1024

    /// A description from parts.
    public init(sessionLines: [SDPLine], media: [SDPMediaSection]) {
        self.sessionLines = sessionLines
        self.media = media
    }

    /// Parses SDP text (CRLF or bare LF); §5 grammar: one letter, `=`, value; `v=0` first; `m=` needs 4 fields.
    public init(parsing text: String, sizeLimit: Int = defaultSizeLimit) throws(WebRTCWireError) {
        let size = text.utf8.count
        guard size <= sizeLimit else { throw .sdpTooLarge(bytes: size, limit: sizeLimit) }
        sessionLines = []
        media = []
        var number = 0
        // "\r\n" is one Character in Swift, so both line ends are separators.
        for raw in text.split(omittingEmptySubsequences: false, whereSeparator: { $0 == "\n" || $0 == "\r\n" }) {
            number += 1
            let line = raw.hasSuffix("\r") ? raw.dropLast() : raw
            if line.isEmpty { continue }
            // §9 grammar: no CR inside a line; a stray one would read back as a line end once we print the description.
            guard !line.contains("\r") else {
                throw .sdpSyntax(line: number, text: String(line.prefix(80)), reason: "CR inside a line")
            }
            let chars = Array(line.prefix(2))
            guard chars.count == 2, chars[1] == "=", let type = chars.first, type.isASCII, type.isLetter,
                type.isLowercase
            else {
                throw .sdpSyntax(line: number, text: String(line.prefix(80)), reason: "expected <letter>=<value>")
            }
            let value = String(line.dropFirst(2))
            if number == 1 || (sessionLines.isEmpty && media.isEmpty) {
                guard type == "v", value == "0" else {
                    throw .sdpSyntax(line: number, text: String(line.prefix(80)), reason: "must start with v=0")
                }
            }
            if type == "m" {
                guard let section = SDPMediaSection(mLine: value) else {
                    throw .sdpSyntax(
                        line: number,
                        text: String(line.prefix(80)),
                        reason: "m= needs <media> <port> <proto> <fmt>"
                    )
                }
                media.append(section)
            } else if media.isEmpty {
                sessionLines.append(SDPLine(type: type, value: value))
            } else {
                media[media.count - 1].lines.append(SDPLine(type: type, value: value))
            }
        }
        guard !sessionLines.isEmpty else { throw .sdpSyntax(line: 1, text: "", reason: "empty description") }
    }

    /// The description as text with CRLF line ends (§5).
    public var text: String {
        var out = ""
        for line in sessionLines { out += "\(line.type)=\(line.value)\r\n" }
        for section in media {
            out += "m=\(section.mLineValue)\r\n"
            for line in section.lines { out += "\(line.type)=\(line.value)\r\n" }
        }
        return out
    }

    /// Values of every session-level `a=<name>:<value>` (or "" for a flag).
    public func attributes(_ name: String) -> [String] { sessionLines.attributeValues(name) }

    /// The first session-level `a=<name>` value, if any.
    public func attribute(_ name: String) -> String? { attributes(name).first }
}

/// RFC 8866 §5: one `<type>=<value>` line.
public struct SDPLine: Equatable, Sendable {
    /// The one-letter type.
    public var type: Character
    /// Everything after `=`.
    public var value: String

    /// A line.
    public init(type: Character, value: String) {
        self.type = type
        self.value = value
    }

    /// An `a=<name>:<value>` line, or `a=<name>` for a flag when `value` is nil.
    public static func attribute(_ name: String, _ value: String? = nil) -> SDPLine {
        SDPLine(type: "a", value: value.map { "\(name):\($0)" } ?? name)
    }
}

/// RFC 8866 §5.14: a media section (`m=` plus its lines).
public struct SDPMediaSection: Equatable, Sendable {
    /// audio, video, application…
    public var kind: String
    /// Transport port (0 rejects the section, RFC 3264 §6).
    public var port: Int
    /// e.g. UDP/TLS/RTP/SAVPF.
    public var proto: String
    /// Payload types (RTP) or other format tokens.
    public var formats: [String]
    /// The lines after `m=`.
    public var lines: [SDPLine]

    /// A section.
    public init(kind: String, port: Int, proto: String, formats: [String], lines: [SDPLine] = []) {
        self.kind = kind
        self.port = port
        self.proto = proto
        self.formats = formats
        self.lines = lines
    }

    /// Reads the value of an `m=` line; nil when a field is missing or the port is not a number.
    init?(mLine value: String) {
        let fields = value.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        guard fields.count >= 4, let port = Int(fields[1].split(separator: "/").first ?? ""), (0...65535).contains(port)
        else { return nil }
        self.init(kind: fields[0], port: port, proto: fields[2], formats: Array(fields[3...]))
    }

    /// The `m=` value.
    var mLineValue: String { ([kind, String(port), proto] + formats).joined(separator: " ") }

    /// Values of every `a=<name>:<value>` (or "" for a flag) in this section.
    public func attributes(_ name: String) -> [String] { lines.attributeValues(name) }

    /// The first `a=<name>` value, if any.
    public func attribute(_ name: String) -> String? { attributes(name).first }
}

extension [SDPLine] {
    /// Values of `a=<name>:<value>` lines, "" for `a=<name>` flags.
    func attributeValues(_ name: String) -> [String] {
        compactMap { line in
            guard line.type == "a", line.value.hasPrefix(name) else { return nil }
            let rest = line.value.dropFirst(name.count)
            if rest.isEmpty { return "" }
            return rest.first == ":" ? String(rest.dropFirst()) : nil
        }
    }
}

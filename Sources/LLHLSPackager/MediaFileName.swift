/// The live media file names inside `{epoch}/{rendition}/` (and a recording's `{rendition}/`): `init-N.mp4`,
/// `MSN.m4s`, `MSN.PART.m4s`. The one grammar: playlists list the names it builds (`description`), and the packager,
/// the origin's routes and its telemetry read requests with it. Numbers are canonical decimals (no sign, no leading
/// zero), so a name parses only as it is built.
public enum MediaFileName: Hashable, Sendable, CustomStringConvertible {
    /// `init-N.mp4`: the init section of session `N`.
    case initSection(Int)
    /// `MSN.m4s`: a whole segment.
    case segment(Int)
    /// `MSN.PART.m4s`: part `PART` of segment `MSN`.
    case part(Int, Int)

    /// Reads a file name; nil when it is not one of the three forms.
    public init?(_ file: some StringProtocol) { self.init(utf8: file.utf8) }

    /// Reads a file name from its UTF-8 bytes (a playlist line, a request target) without making a `String`.
    public init?(utf8 name: some Collection<UInt8>) {
        let fields = name.split(separator: UInt8(ascii: "."), maxSplits: 3, omittingEmptySubsequences: false)
        guard fields.count >= 2, let ext = fields.last else { return nil }
        switch fields.count {
        case 2 where ext.elementsEqual("mp4".utf8):
            guard fields[0].starts(with: Self.initPrefix),
                let n = Self.number(fields[0].dropFirst(Self.initPrefix.count))
            else { return nil }
            self = .initSection(n)
        case 2 where ext.elementsEqual("m4s".utf8):
            guard let m = Self.number(fields[0]) else { return nil }
            self = .segment(m)
        case 3 where ext.elementsEqual("m4s".utf8):
            guard let m = Self.number(fields[0]), let p = Self.number(fields[1]) else { return nil }
            self = .part(m, p)
        default:
            return nil
        }
    }

    /// The file name as playlists list it.
    public var description: String {
        switch self {
        case .initSection(let n): "init-\(n).mp4"
        case .segment(let msn): "\(msn).m4s"
        case .part(let msn, let part): "\(msn).\(part).m4s"
        }
    }

    /// The media sequence number of a segment or part.
    public var msn: Int? {
        switch self {
        case .initSection: nil
        case .segment(let msn), .part(let msn, _): msn
        }
    }

    /// The part index of a part.
    public var part: Int? { if case .part(_, let p) = self { p } else { nil } }

    private static let initPrefix = Array("init-".utf8)

    /// A canonical non-negative decimal: digits only, no leading zero, short enough never to overflow.
    private static func number(_ digits: some Collection<UInt8>) -> Int? {
        guard let first = digits.first, digits.count <= 18, first != UInt8(ascii: "0") || digits.count == 1 else {
            return nil
        }
        var value = 0
        for d in digits {
            guard d >= UInt8(ascii: "0"), d <= UInt8(ascii: "9") else { return nil }
            value = value * 10 + Int(d - UInt8(ascii: "0"))
        }
        return value
    }
}

import MediaCore

/// ISO/IEC 14496-12 §4.2: a parsed box with its body and, for container types, its child boxes.
public struct MP4Box: Sendable {
    /// Four-character type, e.g. `moov`.
    public var type: String
    /// The body after the size/type header (for full boxes it starts with version and flags).
    public var payload: ArraySlice<UInt8>
    /// Child boxes, parsed for container types and sample entries.
    public var children: [MP4Box]
    /// Offset of the box's first (size) byte in the parsed bytes; `start..<payload.endIndex` is the whole box.
    public var start: Int = 0

    /// Plain containers whose body is nothing but boxes.
    static let containers: Set<String> = [
        "moov", "trak", "mdia", "minf", "dinf", "stbl", "mvex", "moof", "traf", "edts", "mfra", "udta", "sinf",
    ]
    /// Types whose children follow a fixed prefix of this many bytes.
    static let prefixed: [String: Int] = [
        "stsd": 8, "dref": 8, "avc1": 78, "avc3": 78, "hvc1": 78, "av01": 78, "mp4a": 28,
    ]

    /// Parses a sequence of sibling boxes filling `bytes`.
    public static func parse(_ bytes: [UInt8]) throws(FMP4Error) -> [MP4Box] {
        try parse(bytes[...], depth: 0)
    }

    /// The first direct child of type `type`.
    public func child(_ type: String) -> MP4Box? { children.first { $0.type == type } }

    /// All direct children of type `type`.
    public func children(_ type: String) -> [MP4Box] { children.filter { $0.type == type } }

    /// The first descendant along a slash-separated path such as `trak/mdia/mdhd`.
    public func find(_ path: String) -> MP4Box? { Self.find(path, in: children) }

    /// The first box along a slash-separated path such as `moov/trak/tkhd`, starting at `boxes`.
    public static func find(_ path: String, in boxes: [MP4Box]) -> MP4Box? {
        var level = boxes
        var found: MP4Box?
        for type in path.split(separator: "/") {
            guard let next = level.first(where: { $0.type == type }) else { return nil }
            found = next
            level = next.children
        }
        return found
    }

    /// Parses `bytes` (indices preserved) as sibling boxes.
    static func parse(_ bytes: ArraySlice<UInt8>, depth: Int) throws(FMP4Error) -> [MP4Box] {
        var boxes: [MP4Box] = []
        var offset = bytes.startIndex
        while offset < bytes.endIndex {
            let available = bytes.endIndex - offset
            guard available >= 8 else { throw .truncatedHeader(offset: offset, available: available) }
            var size = UInt64(bytes[offset..<offset + 4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) })
            let type = String(
                decoding: bytes[offset + 4..<offset + 8].map { $0 < 0x20 || $0 > 0x7E ? 0x3F : $0 },
                as: UTF8.self
            )
            var header = 8
            if size == 1 {
                guard available >= 16 else { throw .truncatedHeader(offset: offset, available: available) }
                size = bytes[offset + 8..<offset + 16].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
                header = 16
            } else if size == 0 {
                size = UInt64(available)  // Extends to the end of the enclosing data.
            }
            guard size >= UInt64(header) else { throw .sizeTooSmall(type: type, offset: offset, size: size) }
            guard size <= UInt64(available) else {
                throw .sizePastEnd(type: type, offset: offset, size: size, available: available)
            }
            let end = offset + Int(size)
            let payload = bytes[offset + header..<end]
            var children: [MP4Box] = []
            // Depth bound: nesting in real files is shallow; deeper input is treated as opaque payload.
            if depth < 16 {
                if containers.contains(type) {
                    children = try parse(payload, depth: depth + 1)
                } else if let prefix = prefixed[type] {
                    guard payload.count >= prefix else {
                        throw .truncatedFields(type: type, needed: prefix, available: payload.count)
                    }
                    children = try parse(payload.dropFirst(prefix), depth: depth + 1)
                }
            }
            boxes.append(MP4Box(type: type, payload: payload, children: children, start: offset))
            offset = end
        }
        return boxes
    }
}

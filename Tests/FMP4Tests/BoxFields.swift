import FMP4
import MediaCore

/// Test helpers: typed reads of box payloads so assertions name fields, not offsets.
extension MP4Box {
    /// A reader over the payload, skipping `skip` bytes (4 for a FullBox's version and flags).
    func reader(skip: Int = 0) throws -> ByteReader {
        var r = ByteReader(Array(payload))
        try r.skip(skip)
        return r
    }

    /// FullBox version.
    var version: UInt8 { payload.first ?? 0xFF }

    /// FullBox 24-bit flags.
    var flags: UInt32 {
        guard payload.count >= 4 else { return 0xFFFF_FFFF }
        let p = Array(payload.prefix(4))
        return UInt32(p[1]) << 16 | UInt32(p[2]) << 8 | UInt32(p[3])
    }

    /// Four-character code at the reader's position.
    static func fourCC(_ r: inout ByteReader) throws -> String { String(decoding: try r.read(count: 4), as: UTF8.self) }
}

/// The fields of one trun, decoded the way hls.js and ffmpeg read it (all four per-sample fields present).
struct TrackRun {
    /// One trun sample record.
    struct Entry: Equatable {
        var duration: UInt32
        var size: UInt32
        var flags: UInt32
        var compositionOffset: Int32
    }

    var dataOffset: Int32
    var entries: [Entry]

    init(_ box: MP4Box) throws {
        var r = try box.reader(skip: 4)
        let count = Int(try r.readUInt32())
        dataOffset = Int32(bitPattern: try r.readUInt32())
        entries = []
        for _ in 0..<count {
            entries.append(
                Entry(
                    duration: try r.readUInt32(),
                    size: try r.readUInt32(),
                    flags: try r.readUInt32(),
                    compositionOffset: Int32(bitPattern: try r.readUInt32())
                )
            )
        }
    }
}

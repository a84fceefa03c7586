import MediaCore

/// E-RTMP v2 "ExVideoTagHeader": the writer mirrors the parser (ModEx first, then command or Multitrack).
extension ExVideoTag {
    /// Serializes as a video message body.
    public func serialize() -> [UInt8] {
        var w = ByteWriter(capacity: 16 + tracks.reduce(0) { $0 + $1.payload.count })
        let inner = multitrack == nil ? packetType.rawValue : ExVideoPacketType.multitrack.rawValue
        let head = 0x80 | frameType.rawValue << 4
        if let nanoseconds = timestampOffsetNanoseconds {
            w.writeUInt8(head | ExVideoPacketType.modEx.rawValue)
            w.writeUInt8(2)  // ModEx data size minus one: a UI24.
            w.writeUInt24(nanoseconds & 0xFF_FFFF)
            w.writeUInt8(inner)  // ModEx type 0 (TimestampOffsetNano) in the high nibble.
        } else {
            w.writeUInt8(head | inner)
        }
        if let command {
            w.writeUInt8(command)
            return w.bytes
        }
        if let multitrack {
            w.writeUInt8(multitrack.rawValue << 4 | packetType.rawValue)
            if multitrack != .manyTracksManyCodecs { w.writeUInt32(tracks.first?.fourCC.rawValue ?? 0) }
        } else {
            w.writeUInt32(tracks.first?.fourCC.rawValue ?? 0)
        }
        for track in tracks {
            var body = ByteWriter(capacity: 3 + track.payload.count)
            if Self.hasCompositionTime(track.fourCC, packetType) {
                body.writeUInt24(UInt32(bitPattern: track.compositionTime) & 0xFF_FFFF)
            }
            body.write(track.payload)
            if let multitrack {
                if multitrack == .manyTracksManyCodecs { w.writeUInt32(track.fourCC.rawValue) }
                w.writeUInt8(track.trackID)
                if multitrack != .oneTrack { w.writeUInt24(UInt32(body.count)) }
            }
            w.write(body.bytes)
        }
        return w.bytes
    }
}

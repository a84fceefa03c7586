import MediaCore

/// E-RTMP v2 "ExAudioTagHeader" / "ExAudioTagBody" pseudocode: ModEx loop, Multitrack, per-track bodies; the
/// writer mirrors the reader.
extension ExAudioTag {
    /// Parses an audio message body whose SoundFormat is 9.
    public static func parse(_ body: [UInt8]) throws(FLVError) -> ExAudioTag {
        var reader = ByteReader(body)
        do { return try parse(&reader) } catch let e as FLVError { throw e } catch {
            throw .truncated(field: "ExAudioTag", size: body.count)
        }
    }

    private static func parse(_ reader: inout ByteReader) throws -> ExAudioTag {
        let first = try reader.readUInt8()
        guard first >> 4 == exHeaderFormat else { throw FLVError.notEnhanced(first) }
        var rawType = first & 0x0F
        var nanoseconds: UInt32?
        while rawType == ExAudioPacketType.modEx.rawValue {
            var size = Int(try reader.readUInt8()) + 1
            if size == 256 { size = Int(try reader.readUInt16()) + 1 }
            let data = Array(try reader.read(count: size))
            let next = try reader.readUInt8()
            // ModEx type 0 is TimestampOffsetNano (UI24); other types are skipped as the spec allows.
            if next >> 4 == 0, data.count >= 3 {
                nanoseconds = UInt32(data[0]) << 16 | UInt32(data[1]) << 8 | UInt32(data[2])
            }
            rawType = next & 0x0F
        }
        var multitrack: AVMultitrackType?
        if rawType == ExAudioPacketType.multitrack.rawValue {
            let b = try reader.readUInt8()
            guard let layout = AVMultitrackType(rawValue: b >> 4) else { throw FLVError.unknownMultitrackType(b >> 4) }
            multitrack = layout
            rawType = b & 0x0F
        }
        guard let packetType = ExAudioPacketType(rawValue: rawType), packetType != .multitrack,
            packetType != .modEx
        else { throw FLVError.unknownPacketType(rawType) }
        let shared: FourCC? = try multitrack == .manyTracksManyCodecs ? nil : FourCC(rawValue: reader.readUInt32())
        var tracks: [Track] = []
        repeat {
            let fourCC = try shared ?? FourCC(rawValue: reader.readUInt32())
            let trackID = try multitrack == nil ? 0 : reader.readUInt8()
            let payload: [UInt8]
            if let multitrack, multitrack != .oneTrack {
                let size = Int(try reader.readUInt24())
                guard size <= reader.remaining else {
                    throw FLVError.trackOverrun(trackID: trackID, size: size, remaining: reader.remaining)
                }
                payload = Array(try reader.read(count: size))
            } else {
                payload = Array(reader.readRest())
            }
            tracks.append(Track(fourCC: fourCC, trackID: trackID, payload: payload))
        } while multitrack != nil && multitrack != .oneTrack && reader.remaining > 0
        return ExAudioTag(
            packetType: packetType,
            multitrack: multitrack,
            tracks: tracks,
            timestampOffsetNanoseconds: nanoseconds
        )
    }

    /// Serializes as an audio message body.
    public func serialize() -> [UInt8] {
        var w = ByteWriter(capacity: 16 + tracks.reduce(0) { $0 + $1.payload.count })
        let inner = multitrack == nil ? packetType.rawValue : ExAudioPacketType.multitrack.rawValue
        let head = Self.exHeaderFormat << 4
        if let nanoseconds = timestampOffsetNanoseconds {
            w.writeUInt8(head | ExAudioPacketType.modEx.rawValue)
            w.writeUInt8(2)  // ModEx data size minus one: a UI24.
            w.writeUInt24(nanoseconds & 0xFF_FFFF)
            w.writeUInt8(inner)  // ModEx type 0 (TimestampOffsetNano) in the high nibble.
        } else {
            w.writeUInt8(head | inner)
        }
        if let multitrack {
            w.writeUInt8(multitrack.rawValue << 4 | packetType.rawValue)
            if multitrack != .manyTracksManyCodecs { w.writeUInt32(tracks.first?.fourCC.rawValue ?? 0) }
        } else {
            w.writeUInt32(tracks.first?.fourCC.rawValue ?? 0)
        }
        for track in tracks {
            if let multitrack {
                if multitrack == .manyTracksManyCodecs { w.writeUInt32(track.fourCC.rawValue) }
                w.writeUInt8(track.trackID)
                if multitrack != .oneTrack { w.writeUInt24(UInt32(track.payload.count)) }
            }
            w.write(track.payload)
        }
        return w.bytes
    }
}

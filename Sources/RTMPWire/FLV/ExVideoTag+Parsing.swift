import MediaCore

/// E-RTMP v2 "ExVideoTagHeader" / "ExVideoTagBody" pseudocode: ModEx loop, command, Multitrack, per-track bodies.
extension ExVideoTag {
    /// Parses a video message body whose IsExHeader bit is set.
    public static func parse(_ body: [UInt8]) throws(FLVError) -> ExVideoTag {
        var reader = ByteReader(body)
        do { return try parse(&reader) } catch let e as FLVError { throw e } catch {
            throw .truncated(field: "ExVideoTag", size: body.count)
        }
    }

    private static func parse(_ reader: inout ByteReader) throws -> ExVideoTag {
        let first = try reader.readUInt8()
        guard first & 0x80 != 0 else { throw FLVError.notEnhanced(first) }
        guard let frameType = ExVideoFrameType(rawValue: (first >> 4) & 0x07) else {
            throw FLVError.unknownFrameType((first >> 4) & 0x07)
        }
        var rawType = first & 0x0F
        var nanoseconds: UInt32?
        while rawType == ExVideoPacketType.modEx.rawValue {
            var size = Int(try reader.readUInt8()) + 1
            if size == 256 { size = Int(try reader.readUInt16()) + 1 }
            let data = try reader.read(count: size)
            let next = try reader.readUInt8()
            // ModEx type 0 is TimestampOffsetNano (UI24); other types are skipped as the spec allows.
            if next >> 4 == 0, data.count >= 3 {
                let d = Array(data)
                nanoseconds = UInt32(d[0]) << 16 | UInt32(d[1]) << 8 | UInt32(d[2])
            }
            rawType = next & 0x0F
        }
        if frameType == .command, rawType != ExVideoPacketType.metadata.rawValue {
            guard let type = ExVideoPacketType(rawValue: rawType) else { throw FLVError.unknownPacketType(rawType) }
            return ExVideoTag(
                frameType: frameType,
                packetType: type,
                tracks: [],
                command: try reader.readUInt8(),
                timestampOffsetNanoseconds: nanoseconds
            )
        }
        var multitrack: AVMultitrackType?
        if rawType == ExVideoPacketType.multitrack.rawValue {
            let b = try reader.readUInt8()
            guard let layout = AVMultitrackType(rawValue: b >> 4) else { throw FLVError.unknownMultitrackType(b >> 4) }
            multitrack = layout
            rawType = b & 0x0F
        }
        guard let packetType = ExVideoPacketType(rawValue: rawType), packetType != .multitrack,
            packetType != .modEx
        else { throw FLVError.unknownPacketType(rawType) }
        let shared: FourCC? = try multitrack == .manyTracksManyCodecs ? nil : FourCC(rawValue: reader.readUInt32())
        var tracks: [Track] = []
        repeat {
            let fourCC = try shared ?? FourCC(rawValue: reader.readUInt32())
            let trackID = try multitrack == nil ? 0 : reader.readUInt8()
            var trackReader: ByteReader
            if let multitrack, multitrack != .oneTrack {
                let size = Int(try reader.readUInt24())
                guard size <= reader.remaining else {
                    throw FLVError.trackOverrun(trackID: trackID, size: size, remaining: reader.remaining)
                }
                trackReader = ByteReader(Array(try reader.read(count: size)))
            } else {
                trackReader = ByteReader(Array(reader.readRest()))
            }
            var cts: Int32 = 0
            if hasCompositionTime(fourCC, packetType) {
                let raw = Int32(try trackReader.readUInt24())
                cts = raw & 0x80_0000 != 0 ? raw - 0x100_0000 : raw
            }
            tracks.append(
                Track(fourCC: fourCC, trackID: trackID, compositionTime: cts, payload: Array(trackReader.readRest()))
            )
        } while multitrack != nil && multitrack != .oneTrack && reader.remaining > 0
        return ExVideoTag(
            frameType: frameType,
            packetType: packetType,
            multitrack: multitrack,
            tracks: tracks,
            timestampOffsetNanoseconds: nanoseconds
        )
    }
}

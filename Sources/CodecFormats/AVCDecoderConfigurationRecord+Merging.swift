/// Two encoders' parameter sets in one `avcC`, so one init section serves both: ITU-T H.264 §7.4.1.2.1 lets a stream
/// hold up to 32 SPS and 256 PPS told apart by id, and each IDR names the PPS (so the SPS) it uses.
extension AVCDecoderConfigurationRecord {
    /// The ids its SPS and PPS use (§7.3.2.1.1 seq_parameter_set_id, §7.3.2.2 pic_parameter_set_id); nil when one
    /// does not parse.
    public var parameterSetIDs: (sps: Set<Int>, pps: Set<Int>)? {
        var sps: Set<Int> = []
        var pps: Set<Int> = []
        for set in sequenceParameterSets {
            guard let parsed = try? H264SPS(parsing: set) else { return nil }
            sps.insert(parsed.spsID)
        }
        for set in pictureParameterSets {
            guard let id = try? Self.pictureParameterSetID(set) else { return nil }
            pps.insert(id)
        }
        return (sps, pps)
    }

    /// The lowest id free both as an SPS and as a PPS id (x264's `sps-id` numbers both), nil when none is.
    public var freeParameterSetID: Int? {
        guard let used = parameterSetIDs else { return nil }
        return (0...31).first { !used.sps.contains($0) && !used.pps.contains($0) }
    }

    /// This record with `other`'s SPS and PPS after its own; its profile fields stay (they describe the stream a
    /// player is told of). Throws when an id of `other` is already taken by a different set.
    public func merging(
        _ other: AVCDecoderConfigurationRecord
    ) throws(CodecFormatError) -> AVCDecoderConfigurationRecord {
        guard let mine = parameterSetIDs, let theirs = other.parameterSetIDs else {
            throw .invalidValue(field: "parameter set", value: -1)
        }
        if let clash = mine.sps.intersection(theirs.sps).first {
            throw .invalidValue(field: "seq_parameter_set_id (in both records)", value: clash)
        }
        if let clash = mine.pps.intersection(theirs.pps).first {
            throw .invalidValue(field: "pic_parameter_set_id (in both records)", value: clash)
        }
        var merged = self
        merged.sequenceParameterSets += other.sequenceParameterSets
        merged.pictureParameterSets += other.pictureParameterSets
        return merged
    }

    /// §7.3.2.2: the first field of a PPS after its NAL header.
    static func pictureParameterSetID(_ nal: [UInt8]) throws(CodecFormatError) -> Int {
        guard let header = nal.first, header & 0x1F == 8 else {
            throw .unexpectedNALType(expected: 8, found: (nal.first ?? 0) & 0x1F)
        }
        var r = BitReader(BitReader.rbsp(fromNAL: nal.dropFirst()))
        let id = Int(try r.readUE("pic_parameter_set_id"))
        guard id <= 255 else { throw .invalidValue(field: "pic_parameter_set_id", value: id) }
        return id
    }
}

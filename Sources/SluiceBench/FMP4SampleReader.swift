import FMP4
import MediaCore

/// One sample read back from a movie fragment: timing in the track's timescale and its bytes (AVCC for H.264).
public struct FMP4ReadSample: Sendable, Equatable {
    /// Decode time (tfdt + earlier durations).
    public var dts: MediaTime
    /// Presentation time (dts + composition offset).
    public var pts: MediaTime
    /// Sample duration.
    public var duration: MediaTime
    /// Not flagged sample_is_non_sync_sample.
    public var isSync: Bool
    /// The sample's bytes from the mdat.
    public var data: [UInt8]
}

/// ISO/IEC 14496-12 §8.8: reads the samples of the video track out of `moof`/`mdat` pairs, using the init
/// segment's `moov` for the track ID, timescale and `trex` defaults.
public struct FMP4SampleReader: Sendable {
    /// track_ID of the first `vide` track.
    public let trackID: UInt32
    /// Its media timescale (mdhd).
    public let timescale: Int32
    private let defaultDuration: UInt32
    private let defaultSize: UInt32
    private let defaultFlags: UInt32

    /// Reads the video track's ID, timescale and defaults from an init segment (ftyp + moov).
    public init(initSegment: [UInt8]) throws(BenchError) {
        let boxes: [MP4Box]
        do { boxes = try MP4Box.parse(initSegment) } catch { throw .badMedia(url: "init", reason: "\(error)") }
        guard let moov = boxes.first(where: { $0.type == "moov" }) else {
            throw .badMedia(url: "init", reason: "no moov")
        }
        // hdlr: version/flags (4), pre_defined (4), handler_type (4).
        let video = moov.children("trak").first { trak in
            guard let hdlr = trak.find("mdia/hdlr"), hdlr.payload.count >= 12 else { return false }
            return hdlr.payload.dropFirst(8).prefix(4).elementsEqual(Array("vide".utf8))
        }
        guard let trak = video, let tkhd = trak.child("tkhd"), let mdhd = trak.find("mdia/mdhd") else {
            throw .badMedia(url: "init", reason: "no video track")
        }
        var r = FieldReader(tkhd.payload)
        let tkhdVersion = r.u8()
        r.skip(3 + (tkhdVersion == 1 ? 16 : 8))  // flags, creation and modification times.
        let id = r.u32()
        trackID = id
        var m = FieldReader(mdhd.payload)
        let mdhdVersion = m.u8()
        m.skip(3 + (mdhdVersion == 1 ? 16 : 8))
        let scale = m.u32()
        guard !r.failed, !m.failed, scale > 0, scale <= UInt32(Int32.max) else {
            throw .badMedia(url: "init", reason: "truncated tkhd or mdhd")
        }
        timescale = Int32(scale)
        // trex (§8.8.3): version/flags, track_ID, description index, duration, size, flags.
        let trex = moov.child("mvex")?.children("trex").first { trackIDOf($0) == id }
        var t = FieldReader(trex?.payload ?? [])
        t.skip(12)
        defaultDuration = trex == nil ? 0 : t.u32()
        defaultSize = trex == nil ? 0 : t.u32()
        defaultFlags = trex == nil ? 0 : t.u32()
    }

    /// The video samples of every `moof` in `media` (a part, a segment, or several), in decode order.
    public func samples(in media: [UInt8]) throws(BenchError) -> [FMP4ReadSample] {
        let boxes: [MP4Box]
        do { boxes = try MP4Box.parse(media) } catch { throw .badMedia(url: "fragment", reason: "\(error)") }
        var out: [FMP4ReadSample] = []
        var boxStart = 0
        for box in boxes {
            defer { boxStart = box.payload.endIndex }
            guard box.type == "moof" else { continue }
            for traf in box.children("traf") {
                out += try samples(traf: traf, moofStart: boxStart, media: media)
            }
        }
        return out
    }

    /// The samples of one `traf` when it is the video track's.
    private func samples(traf: MP4Box, moofStart: Int, media: [UInt8]) throws(BenchError) -> [FMP4ReadSample] {
        guard let tfhd = traf.child("tfhd") else { throw .badMedia(url: "fragment", reason: "traf without tfhd") }
        var h = FieldReader(tfhd.payload)
        let tfhdFlags = h.u32() & 0x00FF_FFFF
        guard h.u32() == trackID else { return [] }
        var base = moofStart
        if tfhdFlags & 0x01 != 0 { base = Int(clamping: h.u64()) }
        if tfhdFlags & 0x02 != 0 { h.skip(4) }
        let duration = tfhdFlags & 0x08 != 0 ? h.u32() : defaultDuration
        let size = tfhdFlags & 0x10 != 0 ? h.u32() : defaultSize
        let flags = tfhdFlags & 0x20 != 0 ? h.u32() : defaultFlags
        var decodeTime: Int64 = 0
        if let tfdt = traf.child("tfdt") {
            var d = FieldReader(tfdt.payload)
            let version = d.u8()
            d.skip(3)
            decodeTime = version == 1 ? Int64(clamping: d.u64()) : Int64(d.u32())
            if d.failed { throw .badMedia(url: "fragment", reason: "truncated tfdt") }
        }
        if h.failed { throw .badMedia(url: "fragment", reason: "truncated tfhd") }
        var out: [FMP4ReadSample] = []
        var dataOffset = base
        for trun in traf.children("trun") {
            var r = FieldReader(trun.payload)
            let version = r.u8()
            let trunFlags = UInt32(r.u8()) << 16 | UInt32(r.u8()) << 8 | UInt32(r.u8())
            let count = Int(r.u32())
            if trunFlags & 0x01 != 0 { dataOffset = base + Int(Int32(bitPattern: r.u32())) }
            let firstFlags = trunFlags & 0x04 != 0 ? r.u32() : nil
            // Each sample record is at least 0 and at most 16 bytes; refuse counts the box cannot hold.
            guard !r.failed, count <= trun.payload.count else { throw .badMedia(url: "fragment", reason: "bad trun") }
            for i in 0..<count {
                let d = trunFlags & 0x100 != 0 ? r.u32() : duration
                let s = Int(trunFlags & 0x200 != 0 ? r.u32() : size)
                let f = trunFlags & 0x400 != 0 ? r.u32() : (i == 0 ? firstFlags ?? flags : flags)
                let cto =
                    trunFlags & 0x800 != 0 ? (version == 0 ? Int64(r.u32()) : Int64(Int32(bitPattern: r.u32()))) : 0
                guard !r.failed, dataOffset >= 0, s <= media.count - dataOffset else {
                    throw .badMedia(url: "fragment", reason: "sample \(i) outside the data")
                }
                out.append(
                    FMP4ReadSample(
                        dts: MediaTime(value: decodeTime, timescale: timescale),
                        pts: MediaTime(value: decodeTime &+ cto, timescale: timescale),
                        duration: MediaTime(value: Int64(d), timescale: timescale),
                        isSync: f & 0x0001_0000 == 0,
                        data: Array(media[dataOffset..<dataOffset + s])
                    )
                )
                dataOffset += s
                decodeTime &+= Int64(d)
            }
        }
        return out
    }
}

/// The track_ID field of a `trex` payload (after version/flags), 0 when truncated.
private func trackIDOf(_ trex: MP4Box) -> UInt32 {
    var r = FieldReader(trex.payload)
    r.skip(4)
    return r.failed ? 0 : r.u32()
}

/// Big-endian fields of a box payload; reads past the end yield 0 and set `failed` instead of trapping.
private struct FieldReader {
    private let bytes: ArraySlice<UInt8>
    private var index: Int
    /// A read ran past the end.
    private(set) var failed = false

    init(_ bytes: ArraySlice<UInt8>) {
        self.bytes = bytes
        index = bytes.startIndex
    }

    init(_ bytes: [UInt8]) { self.init(bytes[...]) }

    mutating func skip(_ n: Int) {
        if bytes.endIndex - index < n { failed = true }
        index = min(bytes.endIndex, index + n)
    }

    mutating func read(_ n: Int) -> UInt64 {
        guard bytes.endIndex - index >= n else {
            failed = true
            index = bytes.endIndex
            return 0
        }
        defer { index += n }
        return bytes[index..<index + n].reduce(UInt64(0)) { $0 << 8 | UInt64($1) }
    }

    mutating func u8() -> UInt8 { UInt8(read(1)) }
    mutating func u32() -> UInt32 { UInt32(read(4)) }
    mutating func u64() -> UInt64 { read(8) }
}

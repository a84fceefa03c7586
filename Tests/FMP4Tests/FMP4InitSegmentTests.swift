import CodecFormats
import FMP4
import MediaCore
import Testing

/// Tracks built from real x264 / AAC configuration bytes.
enum Fixtures {
    /// `avcC` of x264 1280x720 high profile (captured from an ffmpeg-written MP4).
    static let avcC720: [UInt8] = [
        0x01, 0x64, 0x00, 0x1F, 0xFF, 0xE1, 0x00, 0x1A, 0x67, 0x64, 0x00, 0x1F, 0xAC, 0xD9, 0x40, 0x50, 0x05, 0xBB,
        0x01, 0x10, 0x00, 0x00, 0x03, 0x00, 0x10, 0x00, 0x00, 0x03, 0x03, 0xC0, 0xF1, 0x83, 0x19, 0x60, 0x01, 0x00,
        0x06, 0x68, 0xEB, 0xE3, 0xCB, 0x22, 0xC0, 0xFD, 0xF8, 0xF8, 0x00,
    ]

    static func videoTrack() throws -> FMP4Track {
        FMP4Track(trackID: 1, timescale: 90_000, media: .video(try VideoParameters(avcDecoderConfiguration: avcC720)))
    }

    static func audioTrack() throws -> FMP4Track {
        FMP4Track(trackID: 2, timescale: 48_000, media: .audio(try AudioParameters(audioSpecificConfig: [0x11, 0x90])))
    }
}

/// Every init segment field the CMAF checklist names.
@Suite struct FMP4InitSegmentTests {
    @Test func startsWithCMAFBrandsThenMoov() throws {
        let video = try MP4Box.parse(FMP4InitSegment.serialize(track: Fixtures.videoTrack()))
        #expect(video.map(\.type) == ["ftyp", "moov"])
        var r = try video[0].reader()
        #expect(try MP4Box.fourCC(&r) == "iso6")
        #expect(try r.readUInt32() == 0)
        #expect(try (0..<4).map { _ in try MP4Box.fourCC(&r) } == ["iso6", "cmfc", "mp41", "avc1"])
        #expect(r.remaining == 0)

        let audio = try MP4Box.parse(FMP4InitSegment.serialize(track: Fixtures.audioTrack()))
        var a = try audio[0].reader(skip: 8)
        #expect(try (0..<3).map { _ in try MP4Box.fourCC(&a) } == ["iso6", "cmfc", "mp41"])
        #expect(a.remaining == 0)
    }

    @Test func moovHasZeroDurationsAndTrexAfterTrak() throws {
        let track = try Fixtures.videoTrack()
        let boxes = try MP4Box.parse(FMP4InitSegment.serialize(track: track))
        let moov = try #require(boxes.last)
        #expect(moov.children.map(\.type) == ["mvhd", "trak", "mvex"])

        var mvhd = try #require(moov.child("mvhd")).reader(skip: 12)
        #expect(try mvhd.readUInt32() == 90_000)
        #expect(try mvhd.readUInt32() == 0)
        try mvhd.skip(76)
        #expect(try mvhd.readUInt32() == 2)  // next_track_ID

        let tkhd = try #require(moov.find("trak/tkhd"))
        #expect(tkhd.flags == 3)
        var t = try tkhd.reader(skip: 12)
        #expect(try t.readUInt32() == 1)  // track_ID
        try t.skip(4)
        #expect(try t.readUInt32() == 0)  // duration
        try t.skip(12)
        #expect(try t.readUInt16() == 0)  // volume: video is silent
        try t.skip(38)
        #expect(try t.readUInt32() == 1280 << 16)
        #expect(try t.readUInt32() == 720 << 16)

        var mdhd = try #require(moov.find("trak/mdia/mdhd")).reader(skip: 12)
        #expect(try mdhd.readUInt32() == 90_000)
        #expect(try mdhd.readUInt32() == 0)
        #expect(try mdhd.readUInt16() == 0x55C4)  // "und"

        var hdlr = try #require(moov.find("trak/mdia/hdlr")).reader(skip: 8)
        #expect(try MP4Box.fourCC(&hdlr) == "vide")
        #expect(moov.find("trak/mdia/minf/vmhd")?.flags == 1)
        #expect(moov.find("trak/mdia/minf/dinf/dref/url ")?.flags == 1)

        for table in ["stts", "stsc", "stco"] {
            var r = try #require(moov.find("trak/mdia/minf/stbl/\(table)")).reader(skip: 4)
            #expect(try r.readUInt32() == 0 && r.remaining == 0, "\(table) must be empty")
        }
        var stsz = try #require(moov.find("trak/mdia/minf/stbl/stsz")).reader(skip: 4)
        #expect(try stsz.readUInt64() == 0 && stsz.remaining == 0)

        var trex = try #require(moov.find("mvex/trex")).reader(skip: 4)
        #expect(try trex.readUInt32() == 1)  // track_ID
        #expect(try trex.readUInt32() == 1)  // default_sample_description_index
    }

    @Test func videoSampleEntryCarriesAvcCColrAndPasp() throws {
        let boxes = try MP4Box.parse(FMP4InitSegment.serialize(track: Fixtures.videoTrack()))
        let stsd = try #require(MP4Box.find("moov/trak/mdia/minf/stbl/stsd", in: boxes))
        #expect(stsd.children.map(\.type) == ["avc1"])
        let avc1 = stsd.children[0]
        var r = try avc1.reader(skip: 6)
        #expect(try r.readUInt16() == 1)  // data_reference_index
        try r.skip(16)
        #expect(try r.readUInt16() == 1280)
        #expect(try r.readUInt16() == 720)
        #expect(try r.readUInt32() == 0x0048_0000)
        #expect(try r.readUInt32() == 0x0048_0000)
        try r.skip(4)
        #expect(try r.readUInt16() == 1)  // frame_count
        try r.skip(32)
        #expect(try r.readUInt16() == 0x18)
        #expect(try r.readUInt16() == 0xFFFF)
        #expect(avc1.children.map(\.type) == ["avcC", "colr", "pasp"])
        #expect(Array(try #require(avc1.child("avcC")).payload) == Fixtures.avcC720)
        #expect(Array(try #require(avc1.child("colr")).payload) == Array("nclx".utf8) + [0, 1, 0, 1, 0, 1, 0])
        #expect(Array(try #require(avc1.child("pasp")).payload) == [0, 0, 0, 1, 0, 0, 0, 1])
    }

    @Test func audioSampleEntryCarriesEsdsWithTheASC() throws {
        let boxes = try MP4Box.parse(FMP4InitSegment.serialize(track: Fixtures.audioTrack()))
        let moov = try #require(boxes.last)
        var tkhd = try #require(moov.find("trak/tkhd")).reader(skip: 36)
        #expect(try tkhd.readUInt16() == 0x0100)
        var hdlr = try #require(moov.find("trak/mdia/hdlr")).reader(skip: 8)
        #expect(try MP4Box.fourCC(&hdlr) == "soun")
        #expect(moov.find("trak/mdia/minf/smhd") != nil)

        let mp4a = try #require(moov.find("trak/mdia/minf/stbl/stsd/mp4a"))
        var r = try mp4a.reader(skip: 6)
        #expect(try r.readUInt16() == 1)
        try r.skip(8)
        #expect(try r.readUInt16() == 2)  // channelcount
        #expect(try r.readUInt16() == 16)  // samplesize
        try r.skip(4)
        #expect(try r.readUInt32() == 48_000 << 16)

        let esds = try #require(mp4a.child("esds"))
        let es = try Descriptor.parse(Array(esds.payload.dropFirst(4)))
        #expect(es.map(\.tag) == [3])
        #expect(Array(es[0].body.prefix(3)) == [0, 0, 0])  // ES_ID 0, no flags
        let inner = try Descriptor.parse(Array(es[0].body.dropFirst(3)))
        #expect(inner.map(\.tag) == [4, 6])
        #expect(inner[1].body == [2])  // SLConfigDescriptor predefined MP4
        #expect(Array(inner[0].body.prefix(2)) == [0x40, 0x15])  // MPEG-4 audio, streamType 5
        let specific = try Descriptor.parse(Array(inner[0].body.dropFirst(13)))
        #expect(specific.map(\.tag) == [5])
        #expect(specific[0].body == [0x11, 0x90])
    }
}

/// ISO/IEC 14496-1 §8.3.3 descriptor framing, read back for assertions.
struct Descriptor {
    var tag: UInt8
    var body: [UInt8]

    static func parse(_ bytes: [UInt8]) throws -> [Descriptor] {
        var r = ByteReader(bytes)
        var out: [Descriptor] = []
        while r.remaining > 0 {
            let tag = try r.readUInt8()
            var size = 0
            var byte: UInt8
            repeat {
                byte = try r.readUInt8()
                size = size << 7 | Int(byte & 0x7F)
            } while byte & 0x80 != 0
            out.append(Descriptor(tag: tag, body: Array(try r.read(count: size))))
        }
        return out
    }
}

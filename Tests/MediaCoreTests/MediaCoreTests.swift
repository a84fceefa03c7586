import MediaCore
import Testing

/// Time, keys and wall clocks: the vocabulary every layer shares.
@Suite("MediaCore")
struct MediaCoreTests {
    @Test(arguments: [
        (MediaTime(value: 33, timescale: 1000), Int32(90_000), Int64(2_970)),
        (MediaTime(value: 1024, timescale: 48_000), Int32(90_000), Int64(1_920)),
        (MediaTime(value: 3003, timescale: 90_000), Int32(1000), Int64(33)),
        (MediaTime(value: -67, timescale: 1000), Int32(90_000), Int64(-6_030)),
        (MediaTime(value: 1, timescale: 3), Int32(2), Int64(1)),
    ])
    func convertsBetweenTimescalesRoundingToNearest(t: MediaTime, scale: Int32, expected: Int64) {
        #expect(t.converted(to: scale) == MediaTime(value: expected, timescale: scale))
        #expect(t.converted(to: scale).value == expected)
    }

    @Test func comparesAcrossTimescalesExactly() {
        #expect(MediaTime(value: 1, timescale: 1000) < MediaTime(value: 91, timescale: 90_000))
        #expect(MediaTime(value: 90, timescale: 90_000) == MediaTime(value: 1, timescale: 1000))
        // Arithmetic happens in the left operand's timescale: 0.5 s rounds half away from zero to 1 s there.
        #expect((MediaTime(value: 2, timescale: 1) - MediaTime(value: 500, timescale: 1000)).value == 1)
        #expect(
            (MediaTime(value: 2_000, timescale: 1000) - MediaTime(value: 500, timescale: 1000)).duration
                == .milliseconds(1_500)
        )
    }

    @Test(arguments: ["demo", "my-stream_1.x", String(repeating: "a", count: 128)])
    func acceptsValidKeys(_ key: String) { #expect(StreamKey(key)?.rawValue == key) }

    @Test(arguments: ["", ".hidden", "a/b", "a b", "k~480p", "é", String(repeating: "a", count: 129)])
    func rejectsKeysThatCannotAppearInAPath(_ key: String) { #expect(StreamKey(key) == nil) }

    @Test func derivedRenditionKeysRoundTrip() throws {
        let key = try #require(StreamKey("demo"))
        let rung = key.rendition("480p")
        #expect(rung.rawValue == "demo~480p" && rung.sourceKey == key && rung.renditionName == "480p")
        #expect(key.renditionName == nil && key.sourceKey == key)
    }

    @Test func programDateTimeIsISO8601WithMillisecondsAndZulu() {
        #expect(WallTime(millisecondsSince1970: 0).iso8601 == "1970-01-01T00:00:00.000Z")
        #expect(WallTime(millisecondsSince1970: 1_795_306_305_642).iso8601 == "2026-11-22T00:11:45.642Z")
        #expect(
            WallTime(millisecondsSince1970: 1_000).advanced(by: .milliseconds(1_500)).millisecondsSince1970 == 2_500
        )
    }

    @Test func byteReaderNeverTrapsOnShortInput() {
        var r = ByteReader([0x01, 0x02, 0x03])
        #expect(throws: ByteReaderError.truncated(offset: 0, wanted: 4, available: 3)) { try r.readUInt32() }
        #expect((try? r.readUInt24()) == 0x010203)
        var w = ByteWriter()
        w.writeUInt32(0xDEAD_BEEF)
        w.patchUInt(0x00AB, width: 2, at: 1)
        #expect(w.bytes == [0xDE, 0x00, 0xAB, 0xEF])
    }
}

/// `WallTime(iso8601:)` reads back what `iso8601` writes (recordings recover their start from their playlists).
@Suite struct WallTimeISO8601Tests {
    @Test func readsBackWhatItWrites() {
        var rng = SystemRandomNumberGenerator()
        for _ in 0..<200 {
            let t = WallTime(millisecondsSince1970: Int64.random(in: 0...4_102_444_800_000, using: &rng))
            #expect(WallTime(iso8601: t.iso8601) == t, "\(t.iso8601)")
        }
    }

    @Test(arguments: ["", "2026-11-26", "2026-11-26T08:15:00.123", "2026-11-26T08:15:00.123+01:00", "x"])
    func refusesWhatItDoesNotWrite(_ text: String) {
        #expect(WallTime(iso8601: text) == nil)
    }
}

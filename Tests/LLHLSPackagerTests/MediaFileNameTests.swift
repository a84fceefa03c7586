import TestSupport
import Testing

@testable import LLHLSPackager

/// The live media file grammar, `init-N.mp4 | MSN.m4s | MSN.PART.m4s`: one golden table read both ways, and random
/// names that either read back exactly as they are built or not at all.
@Suite struct MediaFileNameTests {
    /// A file name and what it reads as (nil: not a media file).
    static let golden: [(String, MediaFileName?)] = [
        ("init-0.mp4", .initSection(0)),
        ("init-12.mp4", .initSection(12)),
        ("0.m4s", .segment(0)),
        ("1234.m4s", .segment(1234)),
        ("7.0.m4s", .part(7, 0)),
        ("7.11.m4s", .part(7, 11)),
        ("999999999999999999.m4s", .segment(999_999_999_999_999_999)),
        // Not built, so not read: no sign, no leading zero, no empty or extra field, no other extension.
        ("+5.m4s", nil),
        ("-1.m4s", nil),
        ("05.m4s", nil),
        ("7.01.m4s", nil),
        ("init-01.mp4", nil),
        ("init-.mp4", nil),
        ("init-1.m4s", nil),
        ("1.mp4", nil),
        ("1.2.3.m4s", nil),
        (".m4s", nil),
        ("1..m4s", nil),
        ("1.m4s.", nil),
        ("1.M4S", nil),
        ("x.m4s", nil),
        ("1 .m4s", nil),
        ("1234567890123456789.m4s", nil),
        ("index.m3u8", nil),
        ("", nil),
        ("٣.m4s", nil),
    ]

    @Test(arguments: 0..<golden.count)
    func readsTheGoldenName(_ i: Int) {
        let (text, name) = Self.golden[i]
        #expect(MediaFileName(text) == name, "\(text)")
        #expect(MediaFileName(utf8: Array(text.utf8)[...]) == name, "\(text)")
    }

    @Test(arguments: 0..<golden.count)
    func buildsTheGoldenName(_ i: Int) {
        let (text, name) = Self.golden[i]
        if let name { #expect(name.description == text) }
    }

    @Test func everyBuiltNameReadsBack() {
        var rng = SeededRandom(seed: 34)
        for _ in 0..<5_000 {
            let a = Int.random(in: 0...Int(UInt32.max), using: &rng)
            let b = Int.random(in: 0..<100, using: &rng)
            for name in [MediaFileName.initSection(a), .segment(a), .part(a, b)] {
                #expect(MediaFileName(name.description) == name)
                #expect(name.msn == (name == .initSection(a) ? nil : a))
            }
        }
    }

    @Test func randomNamesReadBackAsBuiltOrNotAtAll() {
        var rng = SeededRandom(seed: 35)
        // Names shaped like real ones from good and bad pieces, so random draws reach both.
        let numbers = ["0", "7", "12", "05", "+1", "-1", "", "x", "٣", "1 "]
        let extensions = [".m4s", ".mp4", ".M4S", ".", "", ".m4s.m4s"]
        var read = 0
        for _ in 0..<20_000 {
            var text = Bool.random(using: &rng) ? "init-" : ""
            text += numbers.randomElement(using: &rng)!
            if Bool.random(using: &rng) { text += "." + numbers.randomElement(using: &rng)! }
            text += extensions.randomElement(using: &rng)!
            guard let name = MediaFileName(text) else { continue }
            read += 1
            #expect(name.description == text)
        }
        // The shapes reach real names often enough to mean something.
        #expect(read > 50)
        // Any bytes at all: read or refused, never a crash.
        for _ in 0..<5_000 {
            let bytes = rng.bytes(Int.random(in: 0..<16, using: &rng))
            if let name = MediaFileName(utf8: bytes) { #expect(Array(name.description.utf8) == bytes) }
        }
    }
}

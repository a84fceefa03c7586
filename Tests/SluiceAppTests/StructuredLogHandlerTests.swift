import Foundation
import Logging
import TestSupport
import Testing

@testable import SluiceApp

/// logfmt and JSON lines: fixed field order, metadata sorted, values escaped so one event is one parseable line.
@Suite("Structured logs")
struct StructuredLogHandlerTests {
    static let time = Date(timeIntervalSince1970: 1_763_780_000.123)

    @Test func logfmtLineCarriesStreamAndSession() {
        let line = StructuredLogHandler.render(
            format: .logfmt,
            time: Self.time,
            level: .info,
            message: "RTMP publish started",
            label: "sluice",
            metadata: ["stream": "mystream", "session": "3", "peer": "127.0.0.1:5000"]
        )
        #expect(
            line
                == "time=2025-11-22T02:53:20.123Z level=info msg=\"RTMP publish started\" logger=sluice peer=127.0.0.1:5000 session=3 stream=mystream"
        )
    }

    @Test func logfmtQuotesAndEscapesWhatWouldSplitALine() {
        let line = StructuredLogHandler.render(
            format: .logfmt,
            time: Self.time,
            level: .warning,
            message: "a=b",
            label: "x",
            metadata: ["reason": "bad \"tag\"\nnext", "empty": "", "we ird": "v"]
        )
        #expect(line.hasSuffix(#"msg="a=b" logger=x empty="" reason="bad \"tag\"\nnext" we_ird=v"#))
        #expect(!line.contains("\n"))
    }

    @Test func jsonLineIsOneObjectWithNestedMetadata() throws {
        let line = StructuredLogHandler.render(
            format: .json,
            time: Self.time,
            level: .error,
            message: "rung \"720p\" failed",
            label: "sluice",
            metadata: ["stream": "k", "rungs": ["720p", "480p"], "size": ["w": "1280"], "ctl": "\u{1}"]
        )
        #expect(!line.contains("\n"))
        let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
        #expect(object["time"] as? String == "2025-11-22T02:53:20.123Z")
        #expect(object["level"] as? String == "error" && object["msg"] as? String == "rung \"720p\" failed")
        #expect(object["stream"] as? String == "k" && object["rungs"] as? [String] == ["720p", "480p"])
        #expect((object["size"] as? [String: String]) == ["w": "1280"] && object["ctl"] as? String == "\u{1}")
        #expect(line.hasPrefix(#"{"time":"2025-11-22T02:53:20.123Z","level":"error","msg":"#))
    }

    /// Seeded property: any message and metadata value survives a JSON round trip.
    @Test func jsonRoundTripsArbitraryText() throws {
        var rng = SeededRandom(seed: 6)
        for _ in 0..<300 {
            let text = String(
                String.UnicodeScalarView(
                    (0..<Int(rng.next() % 20)).compactMap { _ in
                        Unicode.Scalar(UInt32(rng.next() % 0x3000)).flatMap {
                            (0xD800...0xDFFF).contains($0.value) ? nil : $0
                        }
                    }
                )
            )
            let line = StructuredLogHandler.render(
                format: .json,
                time: Self.time,
                level: .info,
                message: text,
                label: "p",
                metadata: ["v": .string(text)]
            )
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(object["msg"] as? String == text && object["v"] as? String == text)
        }
    }

    @Test func handlerMergesLoggerMetadataWithTheEvent() {
        var h = StructuredLogHandler(label: "l", format: .logfmt)
        h[metadataKey: "stream"] = "s"
        #expect(h[metadataKey: "stream"] == "s" && h.metadata.count == 1)
    }
}

import CodecFormats
import TestSupport
import Testing

/// One real SPS from x264 (captured from `ffmpeg -f lavfi -i testsrc2 -c:v libx264 -f h264`) and what it means.
struct SPSCase: CustomTestStringConvertible, Sendable {
    let name: String
    let nal: [UInt8]
    let profile: UInt8
    let width: Int
    let height: Int
    let frameRate: Double?
    let codecString: String
    var testDescription: String { name }

    static let all: [SPSCase] = [
        SPSCase(
            name: "1280x720 high",
            nal: hex("6764001facd9405005bb0110000003001000000303c0f1831960"),
            profile: 100,
            width: 1280,
            height: 720,
            frameRate: 30,
            codecString: "avc1.64001f"
        ),
        SPSCase(
            name: "1920x1080 high, cropped from 1088",
            nal: hex("67640028acd940780227e5c044000003000400000300f03c60c658"),
            profile: 100,
            width: 1920,
            height: 1080,
            frameRate: 30,
            codecString: "avc1.640028"
        ),
        SPSCase(
            name: "640x360 main",
            nal: hex("674d401eeca05017fcb80880000003008000001e078b16cb"),
            profile: 77,
            width: 640,
            height: 360,
            frameRate: 30,
            codecString: "avc1.4d401e"
        ),
        SPSCase(
            name: "320x240 baseline",
            nal: hex("6742c00dd90141fb0110000003001000000303c0f142a480"),
            profile: 66,
            width: 320,
            height: 240,
            frameRate: 30,
            codecString: "avc1.42c00d"
        ),
        SPSCase(
            name: "1920x1080 interlaced (field pairs double the map-unit height)",
            nal: hex("67640028acd94078044fde0220000003002000000643e2c5b2c0"),
            profile: 100,
            width: 1920,
            height: 1080,
            frameRate: 25,
            codecString: "avc1.640028"
        ),
        SPSCase(
            name: "640x480 high 4:4:4",
            nal: hex("67f4001e919b281407b60220000003002000000641e2c5b2c0"),
            profile: 244,
            width: 640,
            height: 480,
            frameRate: 25,
            codecString: "avc1.f4001e"
        ),
        // Hand-built: high 1280x720 with an explicit 4x4 list and an early-terminated 8x8 list, no VUI.
        SPSCase(
            name: "1280x720 high with scaling lists",
            nal: hex("6764001fada49249249249022836d9405005b9"),
            profile: 100,
            width: 1280,
            height: 720,
            frameRate: nil,
            codecString: "avc1.64001f"
        ),
        // Hand-built: baseline 176x144, no VUI (sps id 0, poc type 2, 11x9 MBs).
        SPSCase(
            name: "176x144 baseline without VUI",
            nal: hex("6742000a da0b1390"),
            profile: 66,
            width: 176,
            height: 144,
            frameRate: nil,
            codecString: "avc1.42000a"
        ),
    ]
}

/// SPS parsing of real x264 parameter sets.
@Suite struct H264SPSTests {
    @Test(arguments: SPSCase.all) func decodesSizeProfileAndFrameRate(_ c: SPSCase) throws {
        let sps = try H264SPS(parsing: c.nal)
        #expect(sps.profileIdc == c.profile)
        #expect(sps.width == c.width)
        #expect(sps.height == c.height)
        #expect(sps.frameRate == c.frameRate)
        #expect(sps.codecString == c.codecString)
        #expect(sps.levelIdc == c.nal[3])
        #expect(sps.constraintFlags == c.nal[2])
    }

    @Test func rejectsNonSPSNALUnit() {
        #expect(throws: CodecFormatError.unexpectedNALType(expected: 7, found: 8)) {
            try H264SPS(parsing: [0x68, 0xEB, 0xE3, 0xCB])
        }
    }

    @Test func reportsTruncationWithTheFieldName() {
        #expect(throws: CodecFormatError.truncated(what: "level_idc")) { try H264SPS(parsing: [0x67, 0x64, 0x00]) }
    }

    @Test func rejectsOverlongExpGolombCode() {
        #expect(throws: CodecFormatError.invalidValue(field: "seq_parameter_set_id", value: 32)) {
            try H264SPS(parsing: [0x67, 0x42, 0x00, 0x1E, 0, 0, 3, 0, 0, 3, 0, 0, 0, 0])
        }
    }

    @Test func randomAndMutatedBytesNeverCrash() {
        var rng = SeededRandom(seed: 0x5157)
        for i in 0..<4_000 {
            let input: [UInt8]
            if i % 2 == 0 {
                input = rng.mutate(SPSCase.all[i / 2 % SPSCase.all.count].nal)
            } else {
                input = [0x67] + rng.bytes(Int.random(in: 0...40, using: &rng))
            }
            if let sps = try? H264SPS(parsing: input) {
                #expect(sps.width > 0 && sps.height > 0)
            }
        }
    }
}

import CodecFormats
import MediaCore
import Testing
import Transcoder

/// Which rungs a source gets and at what size: never upscale, keep the aspect ratio, even dimensions.
@Suite struct LadderPlanTests {
    /// One golden row: source size in, planned rungs out (`name=WxH`).
    struct Case: Sendable, CustomStringConvertible {
        var width: Int
        var height: Int
        var expected: [String]
        var description: String { "\(width)x\(height)" }
    }

    static let cases: [Case] = [
        Case(width: 1280, height: 720, expected: ["480p=854x480", "360p=640x360"]),
        Case(width: 1920, height: 1080, expected: ["720p=1280x720", "480p=854x480", "360p=640x360"]),
        Case(width: 640, height: 360, expected: []),
        Case(width: 320, height: 240, expected: []),
        Case(width: 1366, height: 768, expected: ["720p=1280x720", "480p=854x480", "360p=640x360"]),
        Case(width: 1440, height: 1080, expected: ["720p=960x720", "480p=640x480", "360p=480x360"]),
        Case(width: 1080, height: 1920, expected: ["720p=406x720", "480p=270x480", "360p=202x360"]),
        Case(width: 854, height: 481, expected: ["480p=852x480", "360p=640x360"]),
    ]

    private func source(_ width: Int, _ height: Int) -> VideoParameters {
        VideoParameters(
            decoderConfiguration: [],
            width: width,
            height: height,
            codecString: "avc1.64001f",
            frameRate: 30
        )
    }

    @Test(arguments: cases)
    func plansRungsBelowTheSourceOnly(_ c: Case) {
        let plan = LadderPlan.plan(source: source(c.width, c.height), rungs: LadderConfiguration.defaultRungs)
        #expect(plan.map { "\($0.name)=\($0.width)x\($0.height)" } == c.expected)
        #expect(plan.allSatisfy { $0.width % 2 == 0 && $0.height % 2 == 0 && $0.height < c.height })
    }

    @Test func maxRungsKeepsTheHighestRungs() {
        let plan = LadderPlan.plan(source: source(1920, 1080), rungs: LadderConfiguration.defaultRungs, maxRungs: 2)
        #expect(plan.map(\.name) == ["720p", "480p"])
    }

    @Test func rungOrderInConfigurationDoesNotMatter() {
        let plan = LadderPlan.plan(source: source(1920, 1080), rungs: LadderConfiguration.defaultRungs.reversed())
        #expect(plan.map(\.name) == ["720p", "480p", "360p"])
        #expect(plan.map(\.videoBitRate) == [BitRate(kbps: 2_800), BitRate(kbps: 1_400), BitRate(kbps: 800)])
    }

    @Test func seededRandomSourcesNeverUpscaleAndStayEven() {
        var rng = SplitMix(seed: 0x5EED)
        for _ in 0..<2_000 {
            let w = Int(rng.next() % 4_000) + 2
            let h = Int(rng.next() % 3_000) + 2
            let plan = LadderPlan.plan(source: source(w, h), rungs: LadderConfiguration.defaultRungs)
            for rung in plan {
                #expect(rung.height < h && rung.width % 2 == 0 && rung.height % 2 == 0 && rung.width >= 2)
                // Aspect ratio is kept to within the one-pixel rounding of each side.
                #expect(
                    abs(Double(rung.width) / Double(rung.height) - Double(w) / Double(h)) <= 2.0 / Double(rung.height)
                        * Double(w) / Double(h) + 2.0 / Double(rung.height)
                )
            }
        }
    }
}

/// A tiny deterministic generator for property tests.
struct SplitMix {
    private var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

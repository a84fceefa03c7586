import LLHLSPackager
import MediaCore
import Telemetry

extension OriginRoutes {
    /// The published header of an answer to `target`: when the part was listed, on the wall clock; nil for anything
    /// but a part (the instant comes with the answer, `HLSResponse.published`).
    static func publishedHeader(_ r: HLSResponse, _ target: RequestTarget) -> String? {
        guard r.status == 200, target.kind == .part, let at = r.published else { return nil }
        // The packager keeps monotonic instants: the same span back from the wall clock's now.
        return OriginResponse.publishedValue(WallTime.now().advanced(by: .zero - (ContinuousClock.now - at)))
    }
}

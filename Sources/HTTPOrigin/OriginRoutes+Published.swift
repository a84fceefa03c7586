import LLHLSPackager
import MediaCore
import Telemetry

extension OriginRoutes {
    /// When the part `target` names was listed, on the wall clock; nil for anything but a part.
    static func partPublished(_ stream: LLHLSStream, _ target: RequestTarget) -> WallTime? {
        guard target.kind == .part, let rendition = target.rendition, let msn = target.msn, let part = target.part,
            let at = stream.partPublished(rendition: rendition, msn: msn, part: part)
        else { return nil }
        // The packager keeps monotonic instants: the same span back from the wall clock's now.
        return WallTime.now().advanced(by: .zero - (ContinuousClock.now - at))
    }
}

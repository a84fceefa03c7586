import LLHLSPackager
import MediaCore

extension OriginRoutes {
    /// When the part named `file` (`MSN.PART.m4s`) was listed, on the wall clock; nil for anything else.
    static func partPublished(_ stream: LLHLSStream, rendition: String, file: String) -> WallTime? {
        guard file.hasSuffix(".m4s") else { return nil }
        let numbers = file.dropLast(4).split(separator: ".", omittingEmptySubsequences: false).map { Int($0) }
        guard numbers.count == 2, let msn = numbers[0], let part = numbers[1],
            let at = stream.partPublished(rendition: rendition, msn: msn, part: part)
        else { return nil }
        // The packager keeps monotonic instants: the same span back from the wall clock's now.
        let age = ContinuousClock.now - at
        let (seconds, attoseconds) = age.components
        return WallTime(
            nanosecondsSince1970: WallTime.now().nanosecondsSince1970 - seconds * 1_000_000_000 - attoseconds
                / 1_000_000_000
        )
    }
}

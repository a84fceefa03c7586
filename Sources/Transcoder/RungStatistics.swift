import MediaCore
import Synchronization

/// What one rung has done so far: frames in and out, drops, and time spent scaling + encoding.
public struct RungStatistics: Sendable, Hashable {
    /// Rendition name.
    public var name: String
    /// Output width in pixels (of the latest plan).
    public var width: Int
    /// Output height in pixels (of the latest plan).
    public var height: Int
    /// Pictures scaled and handed to the encoder.
    public var picturesEncoded = 0
    /// Encoded frames published.
    public var framesPublished = 0
    /// Pictures dropped because the rung fell behind (it resumes at the next source keyframe).
    public var picturesDropped = 0
    /// Scale or encode failures.
    public var errors = 0
    /// Wall time this rung's thread spent scaling and encoding.
    public var busyTime: Duration = .zero

    /// Pictures encoded per second of busy time (the rung's encode speed), 0 before any.
    public var framesPerSecond: Double {
        let seconds = busyTime.secondsDouble
        return seconds > 0 ? Double(picturesEncoded) / seconds : 0
    }

    /// Seconds of scale + encode per second of video at `frameRate` (above 1: the rung cannot keep up alone).
    public func realTimeFactor(frameRate: Double?) -> Double {
        guard picturesEncoded > 0 else { return 0 }
        return busyTime.secondsDouble / Double(picturesEncoded) * (frameRate ?? 30)
    }

    /// Empty statistics for a rung.
    public init(name: String, width: Int, height: Int) {
        self.name = name
        self.width = width
        self.height = height
    }
}

/// A rung's statistics shared between its encoder thread and readers.
final class RungMeter: Sendable {
    private let state: Mutex<RungStatistics>

    init(name: String, width: Int, height: Int) {
        state = Mutex(RungStatistics(name: name, width: width, height: height))
    }

    var snapshot: RungStatistics { state.withLock { $0 } }

    func update(_ body: (inout RungStatistics) -> Void) { state.withLock { body(&$0) } }
}

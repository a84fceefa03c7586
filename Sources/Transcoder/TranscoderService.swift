import Logging
import MediaCore
import StreamHub
import Telemetry

/// Runs a `LadderTranscoder` for every source stream that goes live on the hub (derived rendition keys are skipped).
public struct TranscoderService: Sendable {
    private let hub: StreamHub
    private let configuration: LadderConfiguration
    private let logger: Logger
    private let telemetry: GatewayTelemetry?
    private let onShed: (@Sendable (LadderShedEvent) -> Void)?
    /// Shed steps a stream's next publisher session starts with.
    private let shedMemory = ShedMemory()

    /// A service over `hub` with one ladder configuration for every stream.
    public init(
        hub: StreamHub,
        configuration: LadderConfiguration = LadderConfiguration(),
        logger: Logger = Logger(label: "sluice.transcoder"),
        telemetry: GatewayTelemetry? = nil,
        onShed: (@Sendable (LadderShedEvent) -> Void)? = nil
    ) {
        self.onShed = onShed
        self.telemetry = telemetry
        self.hub = hub
        self.configuration = configuration
        self.logger = logger
    }

    /// Follows announcements until cancelled; each transcoder ends its rungs when its source ends.
    public func run() async {
        await withDiscardingTaskGroup { group in
            for await note in hub.announcements() {
                // Our own rungs (and any other derived key) are outputs, never inputs.
                guard note.key.renditionName == nil else { continue }
                guard
                    let transcoder = LadderTranscoder(
                        hub: hub,
                        source: note.key,
                        configuration: configuration,
                        logger: logger,
                        telemetry: telemetry,
                        shedMemory: shedMemory,
                        onShed: onShed
                    )
                else { continue }
                group.addTask { await transcoder.run() }
            }
        }
    }
}

import ArgumentParser

/// The `sluice` command: serve the gateway or publish a test stream.
@main
struct Sluice: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sluice", abstract: "Low-latency streaming gateway: RTMP in, LL-HLS out.",
        subcommands: [ServeCommand.self, PublishCommand.self, BenchCommand.self, StatsCommand.self, ConfigCommand.self], defaultSubcommand: ServeCommand.self)
}

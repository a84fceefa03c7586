import ArgumentParser
import SluiceApp

/// The `sluice` command: serve the gateway, publish, bench, read stats, print the configuration.
@main
struct Sluice: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "sluice",
        abstract: "Low-latency streaming gateway: \(GatewayProtocols.summary).",
        subcommands: [
            ServeCommand.self, PublishCommand.self, BenchCommand.self, StatsCommand.self, ConfigCommand.self,
        ],
        defaultSubcommand: ServeCommand.self
    )
}

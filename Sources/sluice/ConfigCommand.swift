import ArgumentParser
import Foundation
import SluiceApp

/// `sluice config check FILE` and `sluice config print`: validate and show the effective configuration.
struct ConfigCommand: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "config",
        abstract: "Check a config file or print the effective configuration.",
        subcommands: [Check.self, Print.self]
    )

    /// `sluice config check FILE`: exit 0 when the file (with SLUICE_* overrides) is valid, 1 with the error otherwise.
    struct Check: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Validate a YAML config file (and SLUICE_* environment overrides); exit 1 naming the bad key."
        )

        @Argument(help: "YAML config file.")
        var file: String

        func run() throws {
            do {
                _ = try SluiceConfiguration.load(path: file, environment: ProcessInfo.processInfo.environment)
            } catch let e as ConfigurationError {
                FileHandle.standardError.write(Data("\(file): \(e.description)\n".utf8))
                throw ExitCode(1)
            }
            print("\(file): ok")
        }
    }

    /// `sluice config print [--config FILE]`: defaults, then the file, then the environment, as YAML.
    struct Print: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Print the effective configuration (defaults, the file, SLUICE_* overrides) as YAML."
        )

        @Option(help: "YAML config file (default: $SLUICE_CONFIG, else Config/sluice.yaml when present).")
        var config: String?

        func run() throws {
            let env = ProcessInfo.processInfo.environment
            do {
                let c = try SluiceConfiguration.effective(file: config, environment: env)
                print(c.yamlText(), terminator: "")
            } catch let e as ConfigurationError {
                FileHandle.standardError.write(Data("\(e.description)\n".utf8))
                throw ExitCode(1)
            }
        }
    }
}

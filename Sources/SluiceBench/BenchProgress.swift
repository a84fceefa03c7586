import Foundation

/// The one progress line `sluice bench` keeps while it runs: rewritten in place on a terminal, plain lines otherwise.
final class BenchProgress: Sendable {
    private let isTTY = isatty(STDERR_FILENO) == 1

    /// How often to refresh: every second in place, every 5 s as plain lines (logs stay short).
    var interval: Duration { isTTY ? .seconds(1) : .seconds(5) }

    /// Shows `text` (replacing the previous line on a terminal).
    func update(_ text: String) {
        write(isTTY ? "\r\u{1B}[2K" + text : text + "\n")
    }

    /// Ends the in-place line so the next output starts on a fresh one.
    func finish(_ text: String) {
        write(isTTY ? "\r\u{1B}[2K" + text + "\n" : text + "\n")
    }

    private func write(_ s: String) {
        FileHandle.standardError.write(Data(s.utf8))
    }
}

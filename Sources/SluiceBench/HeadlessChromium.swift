import Foundation

/// Debian's Chromium, headless, as a child process showing one page: muted autoplay, its own throw-away profile,
/// no background network (only the loopback page and gateway are ever fetched).
final class HeadlessChromium {
    /// Where Debian installs it.
    static let defaultBinary = "/usr/bin/chromium"
    private let process = Process()
    private let profile: URL

    /// Starts `binary` on `url`; its output goes to `log` (the profile folder when nil).
    init(url: String, binary: String = HeadlessChromium.defaultBinary) throws(BenchError) {
        guard FileManager.default.isExecutableFile(atPath: binary) else {
            throw .browserFailed("\(binary) is not installed (Debian package chromium)")
        }
        profile = FileManager.default.temporaryDirectory.appendingPathComponent(
            "sluice-bench-chromium-\(UUID().uuidString)"
        )
        process.executableURL = URL(fileURLWithPath: binary)
        process.arguments = [
            "--headless=new", "--no-sandbox", "--autoplay-policy=no-user-gesture-required", "--mute-audio",
            "--user-data-dir=\(profile.path)", "--no-first-run", "--no-default-browser-check",
            "--disable-background-networking", "--disable-component-update", "--disable-sync",
            "--disable-background-timer-throttling", "--disable-renderer-backgrounding", "--window-size=1000,700", url,
        ]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        do {
            try FileManager.default.createDirectory(at: profile, withIntermediateDirectories: true)
            try process.run()
        } catch {
            throw .browserFailed("cannot start \(binary): \(error)")
        }
    }

    deinit { stop() }

    /// True while the browser runs.
    var isRunning: Bool { process.isRunning }

    /// Ends the browser (SIGTERM, then waits) and removes its profile; safe to call twice.
    func stop() {
        if process.isRunning {
            process.terminate()
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: profile)
    }
}

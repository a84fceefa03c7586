/// Polls `condition` every `period` until it holds; false after `timeout` (long bounds only slow a failing run, and a
/// busy box is slow). The one way a test waits for work on other tasks.
public func eventually(
    within timeout: Duration = .seconds(5),
    every period: Duration = .milliseconds(20),
    _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = ContinuousClock.now + timeout
    while ContinuousClock.now < deadline {
        if try await condition() { return true }
        try? await Task.sleep(for: period)
    }
    return try await condition()
}

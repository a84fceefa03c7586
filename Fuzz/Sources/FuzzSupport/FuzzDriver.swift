import CFuzzDriver
import Glibc

/// Hands one Swift test function to libFuzzer, so each target's `@main` is a single line.
public enum FuzzDriver {
    /// The test libFuzzer calls; set once in `run` before the first input, read only afterwards.
    nonisolated(unsafe) private static var test: (([UInt8]) -> Void)?

    /// Runs libFuzzer with the process's flags, calling `test` once per input, and exits with its status.
    public static func run(_ test: @escaping ([UInt8]) -> Void) -> Never {
        Self.test = test
        // A non-capturing closure converts to the C function pointer libFuzzer wants; the test goes through the static.
        exit(
            sluice_fuzz_run(CommandLine.argc, CommandLine.unsafeArgv) { data, size in
                FuzzDriver.test?(Array(UnsafeBufferPointer(start: data, count: size)))
                return 0
            })
    }
}

// libFuzzer's driver, reached from a Swift @main: SwiftPM renames an executable's entry point to
// <module>_main and aliases `main` to it, so libFuzzer's own main never runs.
#include <stddef.h>
#include <stdint.h>

/// Runs libFuzzer with the command-line flags in argv, calling `test` once per input.
int sluice_fuzz_run(int argc, char **argv, int (*test)(const uint8_t *data, size_t size));

#include "FuzzDriver.h"

// From the libFuzzer runtime that `-sanitize=fuzzer` links (compiler-rt's FuzzerInterface.h).
int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*test)(const uint8_t *data, size_t size));

int sluice_fuzz_run(int argc, char **argv, int (*test)(const uint8_t *data, size_t size)) {
    return LLVMFuzzerRunDriver(&argc, &argv, test);
}

// libFuzzer's FuzzerMain.o (linked whole by `-sanitize=fuzzer`) names this symbol; its `main` is replaced by
// the Swift entry point, which passes the real test through sluice_fuzz_run, so this one is never called.
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    (void)data;
    (void)size;
    __builtin_trap();
}

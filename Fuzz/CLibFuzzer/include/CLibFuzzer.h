// libFuzzer's entry for programs that own `main` (compiler-rt FuzzerInterface.h). SwiftPM links an
// executable target's `main` to the module's own entry point, so the fuzz targets start libFuzzer
// from there instead of using the `main` in libclang_rt.fuzzer.
#pragma once
#include <stddef.h>
#include <stdint.h>

int LLVMFuzzerRunDriver(int *argc, char ***argv, int (*UserCb)(const uint8_t *Data, size_t Size));

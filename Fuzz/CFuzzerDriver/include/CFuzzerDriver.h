#include <stddef.h>
#include <stdint.h>

/// libFuzzer's driver (compiler-rt's FuzzerDriver.cpp), for a program that keeps its own `main`. Linked only
/// into builds made with `-sanitize=fuzzer`; call it only when compiled with `-DFUZZING`.
int LLVMFuzzerRunDriver(int *_Nonnull argc, char *_Nullable *_Nullable *_Nonnull argv,
                        int (*_Nonnull test)(const uint8_t *_Nonnull data, size_t size));

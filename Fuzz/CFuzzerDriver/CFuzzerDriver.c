// Only a header: LLVMFuzzerRunDriver is defined by libFuzzer, which -sanitize=fuzzer links in.
#include "CFuzzerDriver.h"

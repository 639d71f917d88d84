// glibc's <malloc.h>, which the Glibc module leaves out: malloc_trim.
#include <malloc.h>

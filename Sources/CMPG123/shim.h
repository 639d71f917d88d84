// libmpg123 renames its offset functions (mpg123_length -> mpg123_length_64) with function-like macros
// when _FILE_OFFSET_BITS is set; Swift cannot import those macros. On 64-bit Linux off_t is 64 bits
// either way, so the plain names are the right ones.
#define MPG123_NO_LARGENAME 1
#include <mpg123.h>

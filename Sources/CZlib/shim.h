#include <zlib.h>

/// inflateInit2 as a function: the macro passes the library's version and stream size, which Swift cannot spell.
static inline int objectstack_inflate_init_raw(z_stream *stream) { return inflateInit2(stream, -MAX_WBITS); }

/// deflateInit2 for raw DEFLATE (no zlib header), as Core Data's model cache is written.
static inline int objectstack_deflate_init_raw(z_stream *stream, int level) {
    return deflateInit2(stream, level, Z_DEFLATED, -MAX_WBITS, 8, Z_DEFAULT_STRATEGY);
}

#ifndef CZLIB_SHIM_H
#define CZLIB_SHIM_H
#if __has_include(<zlib.h>)
#include <zlib.h>
#else
#error "zlib headers not found: apt-get install zlib1g-dev"
#endif

/* deflateInit2/inflateInit2 are macros, which Swift cannot call: raw DEFLATE (RFC 1951, no zlib
   header), as CTAP's large blobs use. */
static inline int czlib_deflate_init_raw(z_stream *stream) {
    return deflateInit2(stream, Z_DEFAULT_COMPRESSION, Z_DEFLATED, -15, 8, Z_DEFAULT_STRATEGY);
}
static inline int czlib_inflate_init_raw(z_stream *stream) {
    return inflateInit2(stream, -15);
}
#endif

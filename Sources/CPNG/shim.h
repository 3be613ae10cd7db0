#ifndef CPNG_SHIM_H
#define CPNG_SHIM_H
#if __has_include(<png.h>)
#include <png.h>
#else
#error "libpng headers not found: apt-get install libpng-dev"
#endif
#endif

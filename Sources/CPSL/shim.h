#ifndef CPSL_SHIM_H
#define CPSL_SHIM_H
#if __has_include(<libpsl.h>)
#include <libpsl.h>
#else
#error "libpsl headers not found: apt-get install libpsl-dev"
#endif
#endif

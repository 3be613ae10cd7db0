#ifndef CZBAR_SHIM_H
#define CZBAR_SHIM_H
#if __has_include(<zbar.h>)
#include <zbar.h>
#else
#error "zbar headers not found: apt-get install libzbar-dev"
#endif
#endif

#ifndef CQRENCODE_SHIM_H
#define CQRENCODE_SHIM_H
#if __has_include(<qrencode.h>)
#include <qrencode.h>
#else
#error "libqrencode headers not found: apt-get install libqrencode-dev"
#endif
#endif

#ifndef CTURBOJPEG_SHIM_H
#define CTURBOJPEG_SHIM_H
#if __has_include(<turbojpeg.h>)
#include <turbojpeg.h>
#else
#error "TurboJPEG headers not found: apt-get install libturbojpeg0-dev"
#endif
#endif

#ifndef CDBUS_SHIM_H
#define CDBUS_SHIM_H
/* libdbus-1, for the bluetoothd (org.bluez) backend of HybridBluetooth. */
#if __has_include(<dbus/dbus.h>)
#include <dbus/dbus.h>
#else
#error "libdbus-1 headers not found: apt-get install libdbus-1-dev"
#endif
#endif

#ifndef CBLUEZ_H
#define CBLUEZ_H
/*
 * CBlueZ: the few Linux Bluetooth calls Swift cannot make directly (libbluetooth's inline filter
 * helpers, the variadic ioctl, struct layouts), exposed with plain C types only: no BlueZ macro or
 * struct reaches Swift. Functions return >= 0 on success, or -1 with errno set.
 */
#if !defined(__linux__)
#error "CBlueZ needs Linux (BlueZ)."
#endif
#if !__has_include(<bluetooth/bluetooth.h>) || !__has_include(<bluetooth/hci_lib.h>)
#error "libbluetooth headers not found: apt-get install libbluetooth-dev"
#endif

#include <stdint.h>

/* 0 when the kernel offers AF_BLUETOOTH raw HCI sockets; -1 with errno (EAFNOSUPPORT when the
   kernel has no Bluetooth). */
int CBlueZ_probeKernel(void);

/* Writes up to `capacity` device ids (the N of hciN) into `ids`; returns how many exist. */
int CBlueZ_listDevices(int *ids, int capacity);

/* Device id of "hciN". -1 with errno ENODEV (no such adapter) or ENETDOWN (adapter is down). */
int CBlueZ_deviceID(const char *name);

/* Id of the first adapter that is up; -1 with errno ENODEV when none is up. */
int CBlueZ_firstUpDevice(void);

typedef struct {
    char name[8];        /* "hci0", NUL-terminated */
    uint8_t address[6];  /* little-endian, as on HCI */
    int isUp;
} CBlueZ_DeviceInfo;

int CBlueZ_deviceInfo(int deviceID, CBlueZ_DeviceInfo *info);

/* Opens a socket on the kernel's management channel (HCI_CHANNEL_CONTROL, no device), the one
   bluetoothd and btmgmt use. Unprivileged sockets may send the read-only commands (Read Controller
   Information among them). Returns the descriptor; close it with close(2). */
int CBlueZ_openManagement(void);

/* Opens a raw HCI socket bound to the device, with an event filter that passes Command Complete,
   Command Status and LE Meta events. Returns the descriptor. */
int CBlueZ_openDevice(int deviceID);

void CBlueZ_closeDevice(int descriptor);

/* Writes one HCI command packet (opcode = OGF << 10 | OCF). Does not wait for the answer. */
int CBlueZ_writeCommand(int descriptor, uint16_t opcode, const uint8_t *parameters, uint8_t length);

/*
 * Exit guard for advertising: advertising state lives in the controller and outlives the process.
 * While a set is guarded, process exit (atexit) and fatal signals whose disposition was the default
 * (SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE) switch it off with a
 * fresh HCI socket before the process dies. Signals someone else already handles are left alone:
 * that handler is expected to stop advertising through the normal path. SIGKILL cannot be caught.
 * `extended` selects LE Set Extended Advertising Enable for set `handle`, else the legacy command.
 * Returns -1 with ENOSPC when 16 sets are already guarded.
 */
int CBlueZ_guardAdvertising(int deviceID, int extended, uint8_t handle);
void CBlueZ_unguardAdvertising(int deviceID, int extended, uint8_t handle);

/*
 * LE L2CAP connection-oriented channels (credit-based flow control), for the CTAP 2.3 hybrid data
 * channel. Sockets are SOCK_SEQPACKET at the kernel's default security (BT_SECURITY_LOW: no pairing,
 * the "insecure CoC" of CTAP 2.3; BT_SECURITY_SDP is refused on LE). Addresses are little-endian as
 * on HCI; `peerType` 1 = LE public, 2 = LE random (the kernel's BDADDR_LE_*). The kernel needs the
 * adapter's mgmt LE setting on, or connect fails at once with ECONNREFUSED (protocol.md §10.9).
 */

/* Listens on the adapter at `local` (LE public) on a dynamic LE PSM the kernel picks, written to
   `psm`. Returns the listening descriptor. */
int CBlueZ_l2capListenLE(const uint8_t local[6], uint16_t *psm);

/* Accepts one channel on a listening descriptor. Returns its descriptor. */
int CBlueZ_l2capAccept(int listener);

/* Connects from the adapter at `local` (LE public) to `peer` (type BDADDR_LE_PUBLIC 1 or BDADDR_LE_RANDOM 2)
   on `psm`, blocking at most `timeoutMilliseconds` (0: the kernel's own limit; EINPROGRESS when it passes).
   Returns the descriptor. */
int CBlueZ_l2capConnectLE(const uint8_t local[6], const uint8_t peer[6], uint8_t peerType, uint16_t psm,
                          int timeoutMilliseconds);

/* The channel's send MTU (BT_SNDMTU: the largest SDU one write may carry). */
int CBlueZ_l2capSendMTU(int descriptor);

/* The HCI connection handle of the LE link under a connected channel (L2CAP_CONNINFO), or -1. */
int CBlueZ_l2capConnectionHandle(int descriptor);

/* The handle of the adapter's LE link to `peer` (little-endian), asked on an open device descriptor
   (HCIGETCONNINFO), or -1 with errno (ENOENT: no such link). */
int CBlueZ_leLinkHandle(int descriptor, const uint8_t peer[6]);

#endif

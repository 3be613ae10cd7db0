#define _GNU_SOURCE
#include "CBlueZ.h"

#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <bluetooth/bluetooth.h>
#include <bluetooth/hci.h>
#include <bluetooth/hci_lib.h>
#include <bluetooth/l2cap.h>

_Static_assert(sizeof(((CBlueZ_DeviceInfo *)0)->name) == sizeof(((struct hci_dev_info *)0)->name),
               "device name size must match struct hci_dev_info");

int CBlueZ_probeKernel(void) {
    int fd = socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI);
    if (fd < 0) return -1;
    close(fd);
    return 0;
}

int CBlueZ_listDevices(int *ids, int capacity) {
    int fd = socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI);
    if (fd < 0) return -1;
    struct hci_dev_list_req *request = calloc(1, sizeof *request + HCI_MAX_DEV * sizeof(struct hci_dev_req));
    if (request == NULL) {
        close(fd);
        errno = ENOMEM;
        return -1;
    }
    request->dev_num = HCI_MAX_DEV;
    if (ioctl(fd, HCIGETDEVLIST, request) < 0) {
        int saved = errno;
        free(request);
        close(fd);
        errno = saved;
        return -1;
    }
    close(fd);
    int count = request->dev_num;
    for (int i = 0; i < count && i < capacity; i++) ids[i] = request->dev_req[i].dev_id;
    free(request);
    return count;
}

int CBlueZ_deviceID(const char *name) {
    if (strncmp(name, "hci", 3) != 0 || name[3] == '\0') {
        errno = ENODEV;
        return -1;
    }
    return hci_devid(name);
}

int CBlueZ_firstUpDevice(void) { return hci_get_route(NULL); }

int CBlueZ_deviceInfo(int deviceID, CBlueZ_DeviceInfo *info) {
    struct hci_dev_info di;
    if (hci_devinfo(deviceID, &di) < 0) return -1;
    memset(info, 0, sizeof *info);
    memcpy(info->name, di.name, sizeof info->name);
    info->name[sizeof info->name - 1] = '\0';
    memcpy(info->address, di.bdaddr.b, 6);
    info->isUp = hci_test_bit(HCI_UP, &di.flags) ? 1 : 0;
    return 0;
}

static int set_event_filter(int fd) {
    struct hci_filter filter;
    hci_filter_clear(&filter);
    hci_filter_set_ptype(HCI_EVENT_PKT, &filter);
    hci_filter_set_event(EVT_CMD_COMPLETE, &filter);
    hci_filter_set_event(EVT_CMD_STATUS, &filter);
    hci_filter_set_event(EVT_LE_META_EVENT, &filter);
    return setsockopt(fd, SOL_HCI, HCI_FILTER, &filter, sizeof filter);
}

int CBlueZ_openDevice(int deviceID) {
    int fd = hci_open_dev(deviceID);
    if (fd < 0) return -1;
    if (set_event_filter(fd) < 0) {
        int saved = errno;
        hci_close_dev(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

int CBlueZ_openManagement(void) {
    int fd = socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI);
    if (fd < 0) return -1;
    struct sockaddr_hci address;
    memset(&address, 0, sizeof address);
    address.hci_family = AF_BLUETOOTH;
    address.hci_dev = HCI_DEV_NONE;
    address.hci_channel = HCI_CHANNEL_CONTROL;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0) {
        int saved = errno;
        close(fd);
        errno = saved;
        return -1;
    }
    return fd;
}

void CBlueZ_closeDevice(int descriptor) { hci_close_dev(descriptor); }

int CBlueZ_writeCommand(int descriptor, uint16_t opcode, const uint8_t *parameters, uint8_t length) {
    return hci_send_cmd(descriptor, cmd_opcode_ogf(opcode), cmd_opcode_ocf(opcode), length, (void *)parameters);
}

/* ---- Exit guard -------------------------------------------------------------------------- */

#define GUARD_SLOTS 16
#define GUARD_USED 0x40000000
static _Atomic int guard_slots[GUARD_SLOTS];
static pthread_once_t guard_once = PTHREAD_ONCE_INIT;
static const int guard_signals[] = {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGABRT, SIGSEGV, SIGBUS, SIGILL, SIGFPE};

static int guard_encode(int deviceID, int extended, uint8_t handle) {
    return GUARD_USED | ((deviceID & 0x3FFF) << 16) | ((extended ? 1 : 0) << 8) | handle;
}

/* Switches one advertising set off. Uses only async-signal-safe calls (socket, bind, setsockopt,
   write, poll, read, close): it runs inside signal handlers. Waits up to 500 ms for the answer. */
static void guard_switch_off(int slot) {
    int deviceID = (slot >> 16) & 0x3FFF, extended = (slot >> 8) & 1;
    uint8_t handle = slot & 0xFF;
    int fd = socket(AF_BLUETOOTH, SOCK_RAW | SOCK_CLOEXEC, BTPROTO_HCI);
    if (fd < 0) return;
    struct sockaddr_hci address;
    memset(&address, 0, sizeof address);
    address.hci_family = AF_BLUETOOTH;
    address.hci_dev = deviceID;
    address.hci_channel = HCI_CHANNEL_RAW;
    if (bind(fd, (struct sockaddr *)&address, sizeof address) < 0 || set_event_filter(fd) < 0) {
        close(fd);
        return;
    }
    uint16_t opcode = extended ? 0x2039 : 0x200A;
    uint8_t packet[10] = {HCI_COMMAND_PKT, opcode & 0xFF, opcode >> 8};
    size_t length;
    if (extended) {
        /* Enable = 0, one set: handle, duration 0, max events 0. */
        uint8_t parameters[] = {0x00, 0x01, handle, 0x00, 0x00, 0x00};
        packet[3] = sizeof parameters;
        memcpy(packet + 4, parameters, sizeof parameters);
        length = 4 + sizeof parameters;
    } else {
        packet[3] = 1;
        packet[4] = 0x00;
        length = 5;
    }
    if (write(fd, packet, length) == (ssize_t)length) {
        struct pollfd entry = {.fd = fd, .events = POLLIN};
        for (int waited = 0; waited < 500; waited += 50) {
            if (poll(&entry, 1, 50) <= 0) continue;
            uint8_t event[HCI_MAX_EVENT_SIZE];
            ssize_t n = read(fd, event, sizeof event);
            /* 04 0E len ncmd opcode-lo opcode-hi status */
            if (n >= 7 && event[1] == EVT_CMD_COMPLETE && event[4] == (opcode & 0xFF) && event[5] == (opcode >> 8)) break;
            if (n >= 7 && event[1] == EVT_CMD_STATUS && event[5] == (opcode & 0xFF) && event[6] == (opcode >> 8)) break;
        }
    }
    close(fd);
}

static void guard_switch_off_all(void) {
    for (int i = 0; i < GUARD_SLOTS; i++) {
        int slot = atomic_exchange(&guard_slots[i], 0);
        if (slot != 0) guard_switch_off(slot);
    }
}

static void guard_on_signal(int signal_number) {
    int saved = errno;
    guard_switch_off_all();
    errno = saved;
    /* Die the way we would have without us: default action, signal re-raised (it is blocked while
       this handler runs, so it is delivered on return). */
    struct sigaction fallback;
    memset(&fallback, 0, sizeof fallback);
    fallback.sa_handler = SIG_DFL;
    sigemptyset(&fallback.sa_mask);
    sigaction(signal_number, &fallback, NULL);
    raise(signal_number);
}

static void guard_install(void) {
    atexit(guard_switch_off_all);
    for (size_t i = 0; i < sizeof guard_signals / sizeof guard_signals[0]; i++) {
        struct sigaction current;
        if (sigaction(guard_signals[i], NULL, &current) < 0) continue;
        if ((current.sa_flags & SA_SIGINFO) || current.sa_handler != SIG_DFL) continue; /* someone else's */
        struct sigaction ours;
        memset(&ours, 0, sizeof ours);
        ours.sa_handler = guard_on_signal;
        sigemptyset(&ours.sa_mask);
        sigaction(guard_signals[i], &ours, NULL);
    }
}

int CBlueZ_guardAdvertising(int deviceID, int extended, uint8_t handle) {
    pthread_once(&guard_once, guard_install);
    int value = guard_encode(deviceID, extended, handle);
    for (int i = 0; i < GUARD_SLOTS; i++) {
        int expected = 0;
        if (atomic_compare_exchange_strong(&guard_slots[i], &expected, value)) return 0;
    }
    errno = ENOSPC;
    return -1;
}

void CBlueZ_unguardAdvertising(int deviceID, int extended, uint8_t handle) {
    int value = guard_encode(deviceID, extended, handle);
    for (int i = 0; i < GUARD_SLOTS; i++) {
        int expected = value;
        if (atomic_compare_exchange_strong(&guard_slots[i], &expected, 0)) return;
    }
}

/* ---- LE L2CAP connection-oriented channels ---------------------------------------------------- */

#include <bluetooth/l2cap.h>

static struct sockaddr_l2 le_address(const uint8_t address[6], uint8_t type, uint16_t psm) {
    struct sockaddr_l2 sa;
    memset(&sa, 0, sizeof(sa));
    sa.l2_family = AF_BLUETOOTH;
    memcpy(sa.l2_bdaddr.b, address, 6);
    sa.l2_bdaddr_type = type;
    sa.l2_psm = htobs(psm);
    return sa;
}

/* Closes `fd` after a failed call and returns -1 with that call's errno. */
static int close_failed(int fd) {
    int saved = errno;
    close(fd);
    errno = saved;
    return -1;
}

int CBlueZ_l2capListenLE(const uint8_t local[6], uint16_t *psm) {
    int fd = socket(AF_BLUETOOTH, SOCK_SEQPACKET | SOCK_CLOEXEC, BTPROTO_L2CAP);
    if (fd < 0) return -1;
    struct sockaddr_l2 sa = le_address(local, BDADDR_LE_PUBLIC, 0);
    socklen_t length = sizeof(sa);
    if (bind(fd, (struct sockaddr *)&sa, sizeof(sa)) < 0 || listen(fd, 1) < 0 ||
        getsockname(fd, (struct sockaddr *)&sa, &length) < 0)
        return close_failed(fd);
    *psm = btohs(sa.l2_psm);
    return fd;
}

int CBlueZ_l2capAccept(int listener) {
    struct sockaddr_l2 sa;
    socklen_t length = sizeof(sa);
    return accept4(listener, (struct sockaddr *)&sa, &length, SOCK_CLOEXEC);
}

int CBlueZ_l2capConnectLE(const uint8_t local[6], const uint8_t peer[6], uint8_t peerType, uint16_t psm,
                          int timeoutMilliseconds) {
    int fd = socket(AF_BLUETOOTH, SOCK_SEQPACKET | SOCK_CLOEXEC, BTPROTO_L2CAP);
    if (fd < 0) return -1;
    struct sockaddr_l2 source = le_address(local, BDADDR_LE_PUBLIC, 0);
    struct sockaddr_l2 target = le_address(peer, peerType, psm);
    /* The kernel's L2CAP connect waits at most the send timeout, then fails with EINPROGRESS
       (bt_sock_wait_state); closing the socket then cancels the LE connection attempt. */
    struct timeval limit = {.tv_sec = timeoutMilliseconds / 1000, .tv_usec = (timeoutMilliseconds % 1000) * 1000};
    if ((timeoutMilliseconds > 0 && setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &limit, sizeof(limit)) < 0) ||
        bind(fd, (struct sockaddr *)&source, sizeof(source)) < 0 ||
        connect(fd, (struct sockaddr *)&target, sizeof(target)) < 0)
        return close_failed(fd);
    return fd;
}

int CBlueZ_l2capConnectionHandle(int descriptor) {
    struct l2cap_conninfo info;
    memset(&info, 0, sizeof(info));
    socklen_t length = sizeof(info);
    if (getsockopt(descriptor, SOL_L2CAP, L2CAP_CONNINFO, &info, &length) < 0) return -1;
    return info.hci_handle;
}

/* The kernel's LE_LINK (include/net/bluetooth/hci.h); <bluetooth/hci.h> names only BR/EDR types. */
#define CBLUEZ_LE_LINK 0x80

int CBlueZ_leLinkHandle(int descriptor, const uint8_t peer[6]) {
    /* HCIGETCONNINFO fills the one hci_conn_info that follows the request. */
    union {
        struct hci_conn_info_req request;
        uint8_t bytes[sizeof(struct hci_conn_info_req) + sizeof(struct hci_conn_info)];
    } query;
    memset(&query, 0, sizeof(query));
    memcpy(query.request.bdaddr.b, peer, 6);
    query.request.type = CBLUEZ_LE_LINK;
    if (ioctl(descriptor, HCIGETCONNINFO, &query) < 0) return -1;
    return query.request.conn_info[0].handle;
}

int CBlueZ_l2capSendMTU(int descriptor) {
    uint16_t mtu = 0;
    socklen_t length = sizeof(mtu);
    if (getsockopt(descriptor, SOL_BLUETOOTH, BT_SNDMTU, &mtu, &length) < 0) return -1;
    return mtu;
}

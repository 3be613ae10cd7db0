#ifndef CUHID_H
#define CUHID_H
/* The few linux/uhid.h operations HybridSecurityKey needs, as plain functions: the kernel
 * structs are packed unions that Swift should not lay out itself. Each returns 0 or -errno. */
#include <stddef.h>
#include <stdint.h>

/* Events read from /dev/uhid that the key handles; everything else is CUHID_EVENT_OTHER. */
enum {
    CUHID_EVENT_OTHER = 0,
    CUHID_EVENT_START = 1,
    CUHID_EVENT_STOP = 2,
    CUHID_EVENT_OPEN = 3,
    CUHID_EVENT_CLOSE = 4,
    CUHID_EVENT_OUTPUT = 5,
};

/* UHID_CREATE2: a device with this report descriptor and identity. */
int CUHID_create2(int fd, const char *name, const char *phys, const char *uniq, uint16_t bus,
                  uint32_t vendor, uint32_t product, uint32_t version, const uint8_t *descriptor,
                  size_t descriptor_size);
/* UHID_INPUT2: one input report (at most 4096 bytes). */
int CUHID_input2(int fd, const uint8_t *data, size_t size);
/* UHID_DESTROY. */
int CUHID_destroy(int fd);
/* Reads one event (blocking unless fd is non-blocking). For CUHID_EVENT_OUTPUT, copies the
 * report (at most capacity bytes) into data and its size into *size; otherwise *size is 0. */
int CUHID_read_event(int fd, int *event, uint8_t *data, size_t capacity, size_t *size);
/* Raises the calling thread's scheduling priority, for a thread that only drains a descriptor:
 * SCHED_FIFO at the lowest real-time priority (1, with SCHED_RESET_ON_FORK so no child inherits
 * it) when the thread may (root, CAP_SYS_NICE or RLIMIT_RTPRIO >= 1), else nice `nice` for this
 * thread alone (CAP_SYS_NICE or RLIMIT_NICE). Returns 2 (real-time), 1 (nice) or 0 (neither was
 * permitted; the thread keeps its priority). */
int CUHID_raise_thread_priority(int nice);
/* eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK): a descriptor a reader thread polls to be told to stop.
 * Returns it, or -errno. */
int CUHID_eventfd(void);
/* BUS_USB and BUS_VIRTUAL from linux/input.h. */
uint16_t CUHID_bus_usb(void);
uint16_t CUHID_bus_virtual(void);
#endif

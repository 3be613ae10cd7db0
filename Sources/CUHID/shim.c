#define _GNU_SOURCE
#include "CUHID.h"

#include <errno.h>
#include <sched.h>
#include <sys/eventfd.h>
#include <sys/resource.h>
#include <linux/input.h>
#include <linux/uhid.h>
#include <string.h>
#include <unistd.h>

_Static_assert(sizeof(((struct uhid_create2_req *)0)->rd_data) == HID_MAX_DESCRIPTOR_SIZE, "uhid_create2_req layout");

static int write_event(int fd, const struct uhid_event *event) {
    ssize_t written = write(fd, event, sizeof(*event));
    if (written < 0) return -errno;
    if ((size_t)written != sizeof(*event)) return -EIO;
    return 0;
}

static void copy_text(char *destination, size_t capacity, const char *text) {
    if (text == NULL) return;
    strncpy(destination, text, capacity - 1);
    destination[capacity - 1] = '\0';
}

int CUHID_create2(int fd, const char *name, const char *phys, const char *uniq, uint16_t bus,
                  uint32_t vendor, uint32_t product, uint32_t version, const uint8_t *descriptor,
                  size_t descriptor_size) {
    struct uhid_event event;
    memset(&event, 0, sizeof(event));
    if (descriptor_size > sizeof(event.u.create2.rd_data)) return -EINVAL;
    event.type = UHID_CREATE2;
    copy_text((char *)event.u.create2.name, sizeof(event.u.create2.name), name);
    copy_text((char *)event.u.create2.phys, sizeof(event.u.create2.phys), phys);
    copy_text((char *)event.u.create2.uniq, sizeof(event.u.create2.uniq), uniq);
    event.u.create2.rd_size = (uint16_t)descriptor_size;
    event.u.create2.bus = bus;
    event.u.create2.vendor = vendor;
    event.u.create2.product = product;
    event.u.create2.version = version;
    event.u.create2.country = 0;
    memcpy(event.u.create2.rd_data, descriptor, descriptor_size);
    return write_event(fd, &event);
}

int CUHID_input2(int fd, const uint8_t *data, size_t size) {
    struct uhid_event event;
    memset(&event, 0, sizeof(event));
    if (size > sizeof(event.u.input2.data)) return -EINVAL;
    event.type = UHID_INPUT2;
    event.u.input2.size = (uint16_t)size;
    memcpy(event.u.input2.data, data, size);
    return write_event(fd, &event);
}

int CUHID_destroy(int fd) {
    struct uhid_event event;
    memset(&event, 0, sizeof(event));
    event.type = UHID_DESTROY;
    return write_event(fd, &event);
}

int CUHID_read_event(int fd, int *kind, uint8_t *data, size_t capacity, size_t *size) {
    struct uhid_event event;
    memset(&event, 0, sizeof(event));
    *size = 0;
    *kind = CUHID_EVENT_OTHER;
    ssize_t got = read(fd, &event, sizeof(event));
    if (got < 0) return -errno;
    if ((size_t)got < sizeof(event.type)) return -EIO;
    switch (event.type) {
    case UHID_START: *kind = CUHID_EVENT_START; break;
    case UHID_STOP: *kind = CUHID_EVENT_STOP; break;
    case UHID_OPEN: *kind = CUHID_EVENT_OPEN; break;
    case UHID_CLOSE: *kind = CUHID_EVENT_CLOSE; break;
    case UHID_OUTPUT: {
        *kind = CUHID_EVENT_OUTPUT;
        size_t count = event.u.output.size;
        if (count > sizeof(event.u.output.data)) count = sizeof(event.u.output.data);
        if (count > capacity) count = capacity;
        memcpy(data, event.u.output.data, count);
        *size = count;
        break;
    }
    default: break;
    }
    return 0;
}

uint16_t CUHID_bus_usb(void) { return BUS_USB; }
uint16_t CUHID_bus_virtual(void) { return BUS_VIRTUAL; }

int CUHID_raise_thread_priority(int nice) {
    struct sched_param parameter;
    memset(&parameter, 0, sizeof(parameter));
    parameter.sched_priority = 1;
    /* pid 0: the calling thread (Linux schedules threads, not processes). */
    if (sched_setscheduler(0, SCHED_FIFO | SCHED_RESET_ON_FORK, &parameter) == 0) return 2;
    if (setpriority(PRIO_PROCESS, (id_t)gettid(), nice) == 0) return 1;
    return 0;
}

int CUHID_eventfd(void) {
    int fd = eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
    return fd < 0 ? -errno : fd;
}

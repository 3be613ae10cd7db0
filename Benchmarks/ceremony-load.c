/*
 * ceremony-load: the load generator of Benchmarks/relay-ceremony.py.
 *
 * Runs COUNT relay ceremonies against 127.0.0.1:PORT, CONCURRENCY at a time, on one thread with
 * epoll and non-blocking sockets, so that the generator costs far less per ceremony than the
 * server it measures (Python's asyncio TLS costs ~5 ms of client CPU a ceremony, which capped the
 * old generator at ~200 TLS ceremonies/s on a core).
 *
 * A ceremony is the one of relay-abuse.py: the phone opens /cable/new/<tunnel ID> and reads the
 * routing ID from the 101 response; the client opens /cable/connect/<routing ID>/<tunnel ID>;
 * seven binary messages of 48-528 B go through the relay (client 81, phone 81, phone 112,
 * phone 528, client 176, phone 400, client 48), each compared byte for byte at the other end;
 * the client sends a close frame (1000), which must reach the phone as a close frame; both ends
 * then close (TLS: one close_notify, then the socket). With --tls CAFILE every connection is a
 * full TLS handshake (no resumption) verified against CAFILE for the name "localhost", offering
 * the TLS 1.3 suites in BoringSSL's (Chrome's, Android's) order.
 *
 * Usage: ceremony-load --port PORT --count N --concurrency C [--tls CAFILE] [--seed S]
 * Prints one line: "ceremonies ok=N failed=F seconds=S seed=S first_error=..." and exits 0 when
 * every ceremony passed, 1 otherwise, 2 on a usage error.
 *
 * Build: cc -O2 -o ceremony-load ceremony-load.c -lssl -lcrypto   (libssl-dev)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <openssl/err.h>
#include <openssl/ssl.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/epoll.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#define BUFFER_SIZE 4096
#define CEREMONY_TIMEOUT_NS (10LL * 1000000000LL)

static const struct { int from_client; size_t size; } MESSAGES[] = {
    {1, 81}, {0, 81}, {0, 112}, {0, 528}, {1, 176}, {0, 400}, {1, 48},
};
#define MESSAGE_COUNT (sizeof MESSAGES / sizeof MESSAGES[0])

/* ---------------------------------------------------------------- seeded randomness */

static uint64_t rng_state;

static uint64_t next_random(void) { /* xorshift64* */
    rng_state ^= rng_state >> 12;
    rng_state ^= rng_state << 25;
    rng_state ^= rng_state >> 27;
    return rng_state * 0x2545F4914F6CDD1DULL;
}

static void random_bytes(uint8_t *out, size_t n) {
    for (size_t i = 0; i < n; i++) out[i] = (uint8_t)(next_random() >> 56);
}

static int64_t now_ns(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (int64_t)t.tv_sec * 1000000000LL + t.tv_nsec;
}

/* ---------------------------------------------------------------- one connection */

typedef enum { IO_DONE, IO_BLOCKED, IO_FAILED } io_result;

typedef struct {
    int fd;
    SSL *ssl;
    int handshaken;
    int eof;
    uint8_t in[BUFFER_SIZE];
    size_t in_length;
    uint8_t out[BUFFER_SIZE];
    size_t out_length, out_sent;
} connection;

static SSL_CTX *tls_context; /* NULL for plain ws:// */
static int relay_port;
static int epoll_fd;

static const char *connection_open(connection *c, void *owner) {
    memset(c, 0, sizeof *c);
    c->fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
    if (c->fd < 0) return "socket failed";
    int one = 1; /* else Nagle and delayed ACKs cost ~40 ms a turn */
    setsockopt(c->fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
    struct sockaddr_in address = {.sin_family = AF_INET, .sin_port = htons((uint16_t)relay_port),
                                  .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
    if (connect(c->fd, (struct sockaddr *)&address, sizeof address) < 0 && errno != EINPROGRESS)
        return "connect failed";
    struct epoll_event event = {.events = EPOLLIN | EPOLLOUT | EPOLLRDHUP | EPOLLET, .data.ptr = owner};
    if (epoll_ctl(epoll_fd, EPOLL_CTL_ADD, c->fd, &event) < 0) return "epoll_ctl failed";
    if (tls_context) {
        c->ssl = SSL_new(tls_context);
        if (!c->ssl || !SSL_set_fd(c->ssl, c->fd) || !SSL_set_tlsext_host_name(c->ssl, "localhost") ||
            !SSL_set1_host(c->ssl, "localhost"))
            return "SSL_new failed";
    }
    return NULL;
}

static void connection_close(connection *c) {
    if (c->fd < 0) return;
    if (c->ssl) {
        if (c->handshaken) SSL_shutdown(c->ssl); /* one close_notify, as a browser sends; no wait */
        SSL_free(c->ssl);
        c->ssl = NULL;
    }
    close(c->fd); /* also leaves the epoll set */
    c->fd = -1;
}

/* An SSL call's outcome: blocked (try again on the next event) or failed. */
static io_result tls_outcome(connection *c, int returned) {
    switch (SSL_get_error(c->ssl, returned)) {
    case SSL_ERROR_WANT_READ:
    case SSL_ERROR_WANT_WRITE: return IO_BLOCKED;
    case SSL_ERROR_ZERO_RETURN: c->eof = 1; return IO_BLOCKED;
    default: ERR_clear_error(); return IO_FAILED;
    }
}

static io_result connection_handshake(connection *c) {
    if (!c->ssl || c->handshaken) return IO_DONE;
    int returned = SSL_connect(c->ssl);
    if (returned == 1) {
        c->handshaken = 1;
        return IO_DONE;
    }
    return tls_outcome(c, returned) == IO_BLOCKED ? IO_BLOCKED : IO_FAILED;
}

/* Writes what is queued; IO_DONE when all of it went out. */
static io_result connection_flush(connection *c) {
    while (c->out_sent < c->out_length) {
        size_t left = c->out_length - c->out_sent;
        ssize_t n;
        if (c->ssl) {
            int returned = SSL_write(c->ssl, c->out + c->out_sent, (int)left);
            if (returned <= 0) return tls_outcome(c, returned);
            n = returned;
        } else {
            n = send(c->fd, c->out + c->out_sent, left, MSG_NOSIGNAL);
            if (n < 0) return (errno == EAGAIN || errno == ENOTCONN) ? IO_BLOCKED : IO_FAILED;
        }
        c->out_sent += (size_t)n;
    }
    c->out_length = c->out_sent = 0;
    return IO_DONE;
}

/* Reads everything available (edge-triggered epoll: until the socket would block). */
static io_result connection_fill(connection *c) {
    while (!c->eof) {
        size_t room = sizeof c->in - c->in_length;
        if (room == 0) return IO_FAILED;
        ssize_t n;
        if (c->ssl) {
            int returned = SSL_read(c->ssl, c->in + c->in_length, (int)room);
            if (returned <= 0) return tls_outcome(c, returned);
            n = returned;
        } else {
            n = recv(c->fd, c->in + c->in_length, room, 0);
            if (n == 0) c->eof = 1;
            if (n < 0) return (errno == EAGAIN || errno == ENOTCONN) ? IO_BLOCKED : IO_FAILED;
        }
        c->in_length += (size_t)n;
    }
    return IO_BLOCKED;
}

static void connection_consume(connection *c, size_t n) {
    memmove(c->in, c->in + n, c->in_length - n);
    c->in_length -= n;
}

static void queue(connection *c, const void *bytes, size_t n) {
    memcpy(c->out + c->out_length, bytes, n);
    c->out_length += n;
}

static void queue_upgrade(connection *c, const char *path) {
    char request[512];
    int n = snprintf(request, sizeof request,
                     "GET %s HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
                     "Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n"
                     "Sec-WebSocket-Protocol: fido.cable\r\n\r\n",
                     path);
    queue(c, request, (size_t)n);
}

/* A masked client frame (FIN set). */
static void queue_frame(connection *c, uint8_t opcode, const uint8_t *payload, size_t n) {
    static const uint8_t mask[4] = {0x11, 0x22, 0x33, 0x44};
    uint8_t head[8] = {(uint8_t)(0x80 | opcode)};
    size_t head_length = 2;
    if (n < 126) {
        head[1] = (uint8_t)(0x80 | n);
    } else {
        head[1] = 0x80 | 126;
        head[2] = (uint8_t)(n >> 8);
        head[3] = (uint8_t)n;
        head_length = 4;
    }
    queue(c, head, head_length);
    queue(c, mask, 4);
    for (size_t i = 0; i < n; i++) c->out[c->out_length + i] = payload[i] ^ mask[i % 4];
    c->out_length += n;
}

/* The length of a complete HTTP head in the input (0: not yet complete). */
static size_t head_length(const connection *c) {
    for (size_t i = 3; i < c->in_length; i++)
        if (memcmp(c->in + i - 3, "\r\n\r\n", 4) == 0) return i + 1;
    return 0;
}

/* The value of the header field `name` (lower case, with the colon) in the head of length n. */
static const char *find_field(const connection *c, size_t n, const char *name) {
    size_t name_length = strlen(name);
    for (size_t i = 2; i + name_length <= n; i++) {
        if (c->in[i - 2] != '\r' || c->in[i - 1] != '\n') continue;
        if (strncasecmp((const char *)c->in + i, name, name_length) != 0) continue;
        const char *value = (const char *)c->in + i + name_length;
        while (value < (const char *)c->in + n && *value == ' ') value++;
        return value;
    }
    return NULL;
}

/* Parses the next server frame that is not a ping or pong: 1 with *opcode, *payload and the
 * frame's length in *used; 0 when it is not complete yet; -1 when it is malformed. */
static int next_frame(const connection *c, size_t *skip, uint8_t *opcode, const uint8_t **payload,
                      size_t *length, size_t *used) {
    size_t at = *skip;
    for (;;) {
        if (c->in_length - at < 2) return 0;
        const uint8_t *p = c->in + at;
        if (p[1] & 0x80) return -1; /* server frames are not masked */
        size_t n = p[1] & 0x7F, header = 2;
        if (n == 127) return -1;
        if (n == 126) {
            if (c->in_length - at < 4) return 0;
            n = ((size_t)p[2] << 8) | p[3];
            header = 4;
        }
        if (c->in_length - at < header + n) return 0;
        uint8_t op = p[0] & 0x0F;
        if (op == 0x9 || op == 0xA) { /* ping or pong: skip */
            at += header + n;
            *skip = at;
            continue;
        }
        *opcode = op;
        *payload = p + header;
        *length = n;
        *used = at + header + n;
        return 1;
    }
}

/* ---------------------------------------------------------------- one ceremony */

enum step {
    PHONE_OPEN, PHONE_UPGRADE, PHONE_RESPONSE, CLIENT_OPEN, CLIENT_UPGRADE, CLIENT_RESPONSE,
    MESSAGE_SEND, MESSAGE_RECEIVE, CLOSE_SEND, CLOSE_RECEIVE, DRAIN, FINISHED
};

typedef struct {
    enum step step;
    size_t message;
    int64_t started;
    char tunnel_id[33];
    char routing_id[7];
    uint8_t expected[600];
    size_t expected_length;
    connection phone, client;
    int active;
} ceremony;

static long remaining, ok, failed;
static char first_error[160];

static void ceremony_start(ceremony *cer) {
    uint8_t id[16];
    random_bytes(id, sizeof id);
    for (int i = 0; i < 16; i++) sprintf(cer->tunnel_id + 2 * i, "%02X", id[i]);
    cer->step = PHONE_OPEN;
    cer->message = 0;
    cer->started = now_ns();
    cer->phone.fd = cer->client.fd = -1;
    cer->active = 1;
    remaining--;
}

static void ceremony_end(ceremony *cer, const char *error) {
    connection_close(&cer->phone);
    connection_close(&cer->client);
    cer->active = 0;
    if (error) {
        failed++;
        if (!first_error[0]) snprintf(first_error, sizeof first_error, "%s", error);
    } else {
        ok++;
    }
}

/* Moves the ceremony on as far as the sockets allow; returns an error or NULL. */
static const char *ceremony_steps(ceremony *cer) {
    for (;;) {
        connection *sender, *receiver;
        io_result r;
        switch (cer->step) {
        case PHONE_OPEN:
        case CLIENT_OPEN: {
            connection *c = cer->step == PHONE_OPEN ? &cer->phone : &cer->client;
            const char *error = connection_open(c, cer);
            if (error) return error;
            cer->step++;
            break;
        }
        case PHONE_UPGRADE:
        case CLIENT_UPGRADE: {
            connection *c = cer->step == PHONE_UPGRADE ? &cer->phone : &cer->client;
            r = connection_handshake(c);
            if (r == IO_FAILED) return "TLS handshake failed";
            if (r == IO_BLOCKED) return NULL;
            char path[96];
            if (cer->step == PHONE_UPGRADE)
                snprintf(path, sizeof path, "/cable/new/%s", cer->tunnel_id);
            else
                snprintf(path, sizeof path, "/cable/connect/%s/%s", cer->routing_id, cer->tunnel_id);
            queue_upgrade(c, path);
            cer->step++;
            break;
        }
        case PHONE_RESPONSE:
        case CLIENT_RESPONSE: {
            connection *c = cer->step == PHONE_RESPONSE ? &cer->phone : &cer->client;
            if (connection_flush(c) == IO_FAILED || connection_fill(c) == IO_FAILED) return "upgrade: I/O failed";
            size_t n = head_length(c);
            if (n == 0) {
                if (c->eof) return "upgrade: closed before the response";
                return NULL;
            }
            if (n < 13 || memcmp(c->in, "HTTP/1.1 101 ", 13) != 0) return "upgrade: not 101";
            if (cer->step == PHONE_RESPONSE) {
                const char *field = find_field(c, n, "x-cable-routing-id:");
                if (!field || field + 6 > (const char *)c->in + n) return "new: no routing ID";
                memcpy(cer->routing_id, field, 6);
                cer->routing_id[6] = 0;
            }
            connection_consume(c, n);
            cer->step++;
            break;
        }
        case MESSAGE_SEND:
            sender = MESSAGES[cer->message].from_client ? &cer->client : &cer->phone;
            cer->expected_length = MESSAGES[cer->message].size;
            random_bytes(cer->expected, cer->expected_length);
            queue_frame(sender, 0x2, cer->expected, cer->expected_length);
            if (connection_flush(sender) == IO_FAILED) return "message: write failed";
            cer->step = MESSAGE_RECEIVE;
            break;
        case MESSAGE_RECEIVE:
        case CLOSE_RECEIVE: {
            int closing = cer->step == CLOSE_RECEIVE;
            sender = closing || MESSAGES[cer->message].from_client ? &cer->client : &cer->phone;
            receiver = sender == &cer->client ? &cer->phone : &cer->client;
            if (connection_flush(sender) == IO_FAILED) return "message: write failed";
            if (connection_fill(receiver) == IO_FAILED) return "message: read failed";
            size_t skip = 0, length, used;
            uint8_t opcode;
            const uint8_t *payload;
            int found = next_frame(receiver, &skip, &opcode, &payload, &length, &used);
            if (found < 0) return "message: malformed frame";
            if (found == 0) {
                if (receiver->eof) return "message: closed before it arrived";
                return NULL;
            }
            if (closing) {
                if (opcode != 0x8) return "close: the phone got no close frame";
                static const uint8_t normal_closure[2] = {0x03, 0xE8};
                queue_frame(&cer->phone, 0x8, normal_closure, 2); /* the phone answers the close */
                cer->step = DRAIN;
                break;
            }
            if (opcode != 0x2 || length != cer->expected_length || memcmp(payload, cer->expected, length) != 0)
                return "message lost or changed";
            connection_consume(receiver, used);
            cer->step = ++cer->message < MESSAGE_COUNT ? MESSAGE_SEND : CLOSE_SEND;
            break;
        }
        case CLOSE_SEND: {
            static const uint8_t normal_closure[2] = {0x03, 0xE8};
            queue_frame(&cer->client, 0x8, normal_closure, 2);
            if (connection_flush(&cer->client) == IO_FAILED) return "close: write failed";
            cer->step = CLOSE_RECEIVE;
            break;
        }
        case DRAIN: /* each end reads until the relay closes (close_notify or FIN), then closes */
            for (int end = 0; end < 2; end++) {
                connection *c = end == 0 ? &cer->phone : &cer->client;
                if (c->fd < 0) continue;
                c->in_length = 0;
                if (connection_flush(c) == IO_FAILED || connection_fill(c) == IO_FAILED || c->eof)
                    connection_close(c);
            }
            if (cer->phone.fd >= 0 || cer->client.fd >= 0) return NULL;
            cer->step = FINISHED;
            break;
        case FINISHED:
            return NULL;
        }
    }
}

/* Moves the ceremony on, and ends it when it failed or finished. */
static void ceremony_advance(ceremony *cer) {
    const char *error = ceremony_steps(cer);
    if (error || cer->step == FINISHED) ceremony_end(cer, error);
}

/* ---------------------------------------------------------------- main */

static int usage(const char *name) {
    fprintf(stderr, "usage: %s --port PORT --count N --concurrency C [--tls CAFILE] [--seed S]\n", name);
    return 2;
}

int main(int argc, char **argv) {
    long count = 0, concurrency = 0;
    const char *cafile = NULL;
    uint64_t seed = (uint64_t)now_ns() ^ ((uint64_t)getpid() << 32);
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--port")) relay_port = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--count")) count = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--concurrency")) concurrency = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--tls")) cafile = argv[i + 1];
        else if (!strcmp(argv[i], "--seed")) seed = strtoull(argv[i + 1], NULL, 10);
        else return usage(argv[0]);
    }
    if (argc % 2 == 0 || relay_port <= 0 || count <= 0 || concurrency <= 0) return usage(argv[0]);
    rng_state = seed ? seed : 1;
    signal(SIGPIPE, SIG_IGN); /* a write to a connection the server reset is an error, not a death */

    if (cafile) {
        tls_context = SSL_CTX_new(TLS_client_method());
        if (!tls_context || !SSL_CTX_set_min_proto_version(tls_context, TLS1_2_VERSION) ||
            !SSL_CTX_set_ciphersuites(tls_context,
                                      "TLS_AES_128_GCM_SHA256:TLS_CHACHA20_POLY1305_SHA256:TLS_AES_256_GCM_SHA384") ||
            !SSL_CTX_load_verify_locations(tls_context, cafile, NULL)) {
            fprintf(stderr, "ceremony-load: cannot set up TLS with %s\n", cafile);
            return 2;
        }
        SSL_CTX_set_verify(tls_context, SSL_VERIFY_PEER, NULL);
        /* Full handshakes only: no session is kept to resume. The ClientHello still offers tickets,
         * as a browser's does, so the server issues them as it would to a browser. */
        SSL_CTX_set_session_cache_mode(tls_context, SSL_SESS_CACHE_OFF);
    }
    epoll_fd = epoll_create1(EPOLL_CLOEXEC);
    if (concurrency > count) concurrency = count;
    ceremony *ceremonies = calloc((size_t)concurrency, sizeof *ceremonies);
    if (epoll_fd < 0 || !ceremonies) return 2;

    remaining = count;
    int64_t started = now_ns(), last_sweep = started;
    for (long i = 0; i < concurrency; i++) {
        ceremony_start(&ceremonies[i]);
        ceremony_advance(&ceremonies[i]);
    }
    struct epoll_event events[256];
    while (ok + failed < count) {
        int n = epoll_wait(epoll_fd, events, 256, 1000);
        for (int i = 0; i < n; i++) {
            ceremony *cer = events[i].data.ptr;
            if (cer->active) ceremony_advance(cer);
        }
        int64_t now = now_ns();
        int sweep = now - last_sweep > 1000000000LL;
        for (long i = 0; i < concurrency; i++) {
            ceremony *cer = &ceremonies[i];
            if (cer->active && sweep && now - cer->started > CEREMONY_TIMEOUT_NS) {
                static const char *const names[] = {"phone open", "phone upgrade", "phone response", "client open",
                                                     "client upgrade", "client response", "message send",
                                                     "message receive", "close send", "close receive", "drain", "finished"};
                char error[64];
                snprintf(error, sizeof error, "timed out at %s (%d %d)", names[cer->step], cer->phone.fd, cer->client.fd);
                ceremony_end(cer, error);
            }
            while (!cer->active && remaining > 0) {
                ceremony_start(cer);
                ceremony_advance(cer);
            }
        }
        if (sweep) last_sweep = now;
    }
    double seconds = (double)(now_ns() - started) / 1e9;
    printf("ceremonies ok=%ld failed=%ld seconds=%.3f seed=%llu first_error=%s\n", ok, failed, seconds,
           (unsigned long long)seed, first_error[0] ? first_error : "-");
    return failed ? 1 : 0;
}

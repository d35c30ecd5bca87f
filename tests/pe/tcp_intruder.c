/* tcp_intruder.c -- a running tcp job turns strangers away (internal: uses
 * the tcp transport's endpoint table). While every PE runs barriers, puts
 * and atomics with checksums, the last PE opens connections to PE 0's
 * listening port: a hello with a wrong job key, a stream of garbage, and a
 * connection that sends nothing and closes. PE 0 must log a rejection for
 * each and the job must finish with correct results. */
#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

#include "rt.h"
#include "tcp/tcp.h"
#include "tcp/wire.h"

#include "pe_test.h"

#define ROUNDS 300
#define WORDS  512

static int dial(const char *addr, int port)
{
    struct sockaddr_in sa = { .sin_family = AF_INET, .sin_port = htons((uint16_t)port) };
    int                fd = socket(AF_INET, SOCK_STREAM, 0);

    CHECK(fd >= 0 && inet_pton(AF_INET, addr, &sa.sin_addr) == 1, "socket/address %s", addr);
    CHECK(connect(fd, (struct sockaddr *)&sa, sizeof(sa)) == 0, "connect to %s:%d", addr, port);
    return fd;
}

static void intrude(void)
{
    char                  addr[64];
    int                   port, fd;
    struct kumi_tcp_hello h = { .magic = KUMI_TCP_MAGIC, .version = KUMI_TCP_VERSION,
                                .src_rank = (uint32_t)kumi_rank(), .dst_rank = 0,
                                .size = (uint32_t)kumi_size() };
    uint8_t               junk[4096];

    CHECK(kumi_tcp_endpoint(&kumi_rt.tp, 0, addr, sizeof(addr), &port) == KUMI_OK,
          "endpoint of PE 0");
    memset(h.key, 0x5a, sizeof(h.key));                 /* not this job's key */
    fd = dial(addr, port);
    CHECK(write(fd, &h, sizeof(h)) == (ssize_t)sizeof(h), "write hello");
    close(fd);
    fd = dial(addr, port);
    for (size_t i = 0; i < sizeof(junk); i++)
        junk[i] = (uint8_t)(i * 131 + 7);
    for (int i = 0; i < 16; i++)
        if (write(fd, junk, sizeof(junk)) < 0)
            break;                                      /* PE 0 closed it: fine */
    close(fd);
    fd = dial(addr, port);                              /* says nothing at all */
    close(fd);
}

int main(void)
{
    OK(kumi_init());
    int       me = kumi_rank(), n = kumi_size(), right = (me + 1) % n;
    uint64_t *buf = kumi_malloc(WORDS * sizeof(uint64_t));
    uint64_t *counter = kumi_malloc(sizeof(uint64_t));
    uint64_t  src[WORDS], sum = 0, want = 0;

    CHECK(buf && counter, "kumi_malloc");
    *counter = 0;
    if (me == 0)
        capture_begin();
    BARRIER();
    for (int r = 0; r < ROUNDS; r++) {
        for (int i = 0; i < WORDS; i++)
            src[i] = (uint64_t)r * 1000003u + (uint64_t)me * 7919u + (uint64_t)i;
        OK(kumi_put(buf, src, sizeof(src), right));
        OK(kumi_atomic_add_u64(counter, 1, 0));
        if (me == n - 1 && r == ROUNDS / 3)
            intrude();
        BARRIER();
        int left = (me + n - 1) % n;
        for (int i = 0; i < WORDS; i++) {
            sum += buf[i];
            want += (uint64_t)r * 1000003u + (uint64_t)left * 7919u + (uint64_t)i;
        }
        BARRIER();
    }
    OK(kumi_quiet());
    BARRIER();
    CHECK(sum == want, "checksum %llu, expected %llu", (unsigned long long)sum,
          (unsigned long long)want);
    if (me == 0) {
        /* the silent connection is dropped after the hello deadline */
        double t0 = kumi_wtime();
        while (kumi_wtime() - t0 < 2.5)
            kumi_test_u64(counter, KUMI_CMP_EQ, 0);
        const char *log = capture_end();
        fputs(log, stderr);
        CHECK(*counter == (uint64_t)ROUNDS * (uint64_t)n, "counter %llu",
              (unsigned long long)*counter);
        CHECK(strstr(log, "rejected connection from") && strstr(log, "wrong job key"),
              "no rejection of the wrong key logged");
        CHECK(strstr(log, "not a kumi hello"), "no rejection of the garbage logged");
        CHECK(strstr(log, "closed before its hello") || strstr(log, "no hello in time"),
              "no rejection of the silent connection logged");
    }
    BARRIER();
    kumi_free(buf);
    kumi_free(counter);
    if (me == 0)
        printf("tcp_intruder: %d PEs ok, intruders rejected\n", n);
    return kumi_finalize();
}

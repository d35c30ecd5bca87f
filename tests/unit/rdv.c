/* rdv.c -- the rendezvous (runtime/rdv.c, launcher/rdv_server.c): a server on
 * 127.0.0.1 in one thread, PEs as threads calling the client API, and raw
 * sockets playing strangers. Covers join and all-gather rounds (blobs of
 * different sizes, empty ones, several rounds), rejected keys and garbage
 * while the job goes on, silence, EOF, FAIL delivery, BYE and EXIT, and
 * what silence is not: either side's own stall, a live process sparing
 * (driven by a made-up clock: `now` is an argument of both services). */
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <poll.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "launch.h"
#include "rdv.h"
#include "rdv_server.h"

#define MAXPE 8
#define NEV   8     /* > every enum kumi_rdv_event */
#define TEST_DEAD_S 3.0 /* silence that is a peer gone, and the hello deadline */
/* how late a verdict may come on a loaded machine: a thread of this test
 * that stalls is not listening, which delays verdicts by up to the dead
 * time (rdv.h) */
#define TEST_SLACK_S (TEST_DEAD_S + 1.0)

static const uint8_t key[KUMI_RDV_KEY_BYTES] = { 1, 2, 3, 4, 5, 6, 7, 8,
                                                 9, 10, 11, 12, 13, 14, 15, 16 };

struct srv {
    struct kumi_rdv_server *s;
    pthread_t               thread;
    pthread_mutex_t         lock;
    pthread_cond_t          pass;             /* broadcast after each service pass */
    long                    passes;           /* service passes made */
    int                     bad_events;       /* on_event's arguments out of range */
    volatile int            stop;
    int                     ev[MAXPE][NEV];   /* count per (rank, event) */
    int                     fin[MAXPE];
    int                     exit_status[MAXPE];
    double                  ev_at[MAXPE][NEV];
};

static void on_event(void *arg, int rank, enum kumi_rdv_event ev, int value)
{
    struct srv *v = arg;

    /* called from kumi_rdv_server_service in the server's thread, under
     * v->lock: no cmocka assertion here (they belong to the test's own
     * thread); srv_stop checks bad_events */
    if (!(rank >= 0 && rank < MAXPE && ev >= 0 && ev < NEV)) {
        v->bad_events++;
        return;
    }
    v->ev[rank][ev]++;
    v->ev_at[rank][ev] = kumi_tp_now();
    if (ev == KUMI_RDV_EV_BYE)
        v->fin[rank] = value;
    if (ev == KUMI_RDV_EV_EXIT) {
        /* as kumirun does: the job ends by that request (the first) */
        v->exit_status[rank] = value;
        kumi_rdv_server_fail(v->s, KUMI_TP_FAIL_EXIT | (uint32_t)(rank + 1), value);
    }
}

static void *srv_loop(void *arg)
{
    struct srv *v = arg;

    while (!v->stop) {
        struct pollfd p = { .fd = kumi_rdv_server_fd(v->s), .events = POLLIN };
        poll(&p, 1, 20);
        pthread_mutex_lock(&v->lock);
        kumi_rdv_server_service(v->s, kumi_tp_now());
        v->passes++;
        pthread_cond_broadcast(&v->pass);
        pthread_mutex_unlock(&v->lock);
    }
    return NULL;
}

static void srv_start(struct srv *v, int npes)
{
    char err[256];

    memset(v, 0, sizeof(*v));
    pthread_mutex_init(&v->lock, NULL);
    pthread_cond_init(&v->pass, NULL);
    assert_int_equal(kumi_rdv_server_open(&v->s, "127.0.0.1", npes, key, TEST_DEAD_S, on_event, v,
                                          err, sizeof(err)), 0);
    assert_non_null(strstr(kumi_rdv_server_address(v->s), "127.0.0.1:"));
    assert_int_equal(pthread_create(&v->thread, NULL, srv_loop, v), 0);
}

static void srv_stop(struct srv *v)
{
    v->stop = 1;
    pthread_join(v->thread, NULL);
    kumi_rdv_server_close(v->s);
    pthread_cond_destroy(&v->pass);
    pthread_mutex_destroy(&v->lock);
    assert_int_equal(v->bad_events, 0);
}

static int srv_count(struct srv *v, int rank, enum kumi_rdv_event ev)
{
    pthread_mutex_lock(&v->lock);
    int n = v->ev[rank][ev];
    pthread_mutex_unlock(&v->lock);
    return n;
}

/* Waits until the server has counted `want` events ev of rank (at most
 * 10 s), then for two more service passes, so that whatever would follow
 * those events (an EOF after a BYE) has been read as well. Returns the
 * count then. */
static int srv_await(struct srv *v, int rank, enum kumi_rdv_event ev, int want)
{
    struct timespec end;
    clock_gettime(CLOCK_REALTIME, &end);
    end.tv_sec += 10;
    pthread_mutex_lock(&v->lock);
    while (v->ev[rank][ev] < want && pthread_cond_timedwait(&v->pass, &v->lock, &end) == 0)
        ;
    long p0 = v->passes;
    while (v->passes < p0 + 2 && pthread_cond_timedwait(&v->pass, &v->lock, &end) == 0)
        ;
    int n = v->ev[rank][ev];
    pthread_mutex_unlock(&v->lock);
    return n;
}

/* a PE in a thread */
struct pe {
    struct srv            *v;
    const char            *rdv;
    int                    rank, size, rc, bad_key;
    uint8_t                mine[24];
    struct kumi_rdv_all    all;
    struct kumi_rdv_client c;
    char                   err[256];
    pthread_t              thread;
};

/* PE rank's blob of the first round: rank + 4 bytes (sizes differ) */
static size_t blob_len(int rank)
{
    return (size_t)rank + 4;
}

/* joins and runs the first round */
static void *pe_join(void *arg)
{
    struct pe *p = arg;
    uint8_t    k[KUMI_RDV_KEY_BYTES];

    memcpy(k, key, sizeof(k));
    if (p->bad_key)
        k[7] ^= 0x40;
    for (size_t i = 0; i < sizeof(p->mine); i++)
        p->mine[i] = (uint8_t)(p->rank * 16 + i);
    p->rc = kumi_rdv_join(&p->c, p->rdv, k, p->rank, p->size, 10.0, TEST_DEAD_S, p->err, sizeof(p->err));
    if (p->rc == 0)
        p->rc = kumi_rdv_allgather(&p->c, p->mine, blob_len(p->rank), &p->all, 10.0, p->err,
                                   sizeof(p->err));
    return NULL;
}

/* a later round: PE rank sends rank bytes (PE 0 an empty blob) */
static void *pe_round(void *arg)
{
    struct pe *p = arg;

    kumi_rdv_all_free(&p->all);
    p->rc = kumi_rdv_allgather(&p->c, p->mine, (size_t)p->rank, &p->all, 10.0, p->err,
                               sizeof(p->err));
    return NULL;
}

static void pes_join(struct srv *v, struct pe *pes, int n, int size)
{
    for (int i = 0; i < n; i++) {
        memset(&pes[i], 0, sizeof(pes[i]));
        pes[i].v    = v;
        pes[i].rdv  = kumi_rdv_server_address(v->s);
        pes[i].rank = i;
        pes[i].size = size;
        assert_int_equal(pthread_create(&pes[i].thread, NULL, pe_join, &pes[i]), 0);
    }
    for (int i = 0; i < n; i++)
        pthread_join(pes[i].thread, NULL);
}

static void pes_free(struct pe *pes, int n)
{
    for (int i = 0; i < n; i++)
        kumi_rdv_all_free(&pes[i].all);
}

/* Services client c for secs; returns 1 with failed/status if it ended. */
static int pe_service_for(struct kumi_rdv_client *c, double secs, uint32_t *failed,
                          int32_t *status)
{
    double end = kumi_tp_now() + secs;

    while (kumi_tp_now() < end) {
        struct pollfd p = { .fd = c->fd, .events = POLLIN };
        poll(&p, 1, 50);
        if (kumi_rdv_service(c, kumi_tp_now(), failed, status) != 0)
            return 1;
    }
    return 0;
}

/* a raw TCP connection to the server */
static int raw_connect(const char *rdv)
{
    struct sockaddr_in a = { .sin_family = AF_INET };
    const char        *colon = strrchr(rdv, ':');
    int                fd = socket(AF_INET, SOCK_STREAM, 0);

    assert_true(fd >= 0 && colon != NULL);
    a.sin_port        = htons((uint16_t)atoi(colon + 1));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(connect(fd, (struct sockaddr *)&a, sizeof(a)), 0);
    return fd;
}

/* 1 when the server closes fd within secs */
static int raw_closed_within(int fd, double secs)
{
    struct pollfd p = { .fd = fd, .events = POLLIN };
    char          buf[64];

    if (poll(&p, 1, (int)(secs * 1000)) <= 0)
        return 0;
    return recv(fd, buf, sizeof(buf), 0) <= 0;
}

/* stderr into a file while fn runs, so the server's log can be checked */
static char logbuf[8192];
static int  saved_stderr = -1;
static FILE *logf;

static void log_begin(void)
{
    fflush(stderr);
    logf = tmpfile();
    assert_non_null(logf);
    saved_stderr = dup(2);
    dup2(fileno(logf), 2);
}

static void log_end(void)
{
    size_t n;

    fflush(stderr);
    dup2(saved_stderr, 2);
    close(saved_stderr);
    rewind(logf);
    n = fread(logbuf, 1, sizeof(logbuf) - 1, logf);
    logbuf[n] = '\0';
    fclose(logf);
}

static int log_count(const char *needle)
{
    int n = 0;
    for (const char *p = logbuf; (p = strstr(p, needle)) != NULL; p++)
        n++;
    return n;
}

static void test_parse_key(void **state)
{
    uint8_t k[KUMI_RDV_KEY_BYTES];
    (void)state;

    assert_int_equal(kumi_rdv_parse_key("0102030405060708090a0B0c0D0e0F10", k), KUMI_OK);
    assert_memory_equal(k, key, sizeof(k));
    assert_int_equal(kumi_rdv_parse_key("0102030405060708090a0b0c0d0e0f1", k), KUMI_ERR_INVALID);
    assert_int_equal(kumi_rdv_parse_key("0102030405060708090a0b0c0d0e0f100", k), KUMI_ERR_INVALID);
    assert_int_equal(kumi_rdv_parse_key("0102030405060708090a0b0c0d0e0fxx", k), KUMI_ERR_INVALID);
    assert_int_equal(kumi_rdv_parse_key(NULL, k), KUMI_ERR_INVALID);
}

/* four PEs join, each gets everyone's blob; a second round with other
 * sizes (an empty one too); heartbeats keep them alive past the dead
 * time; BYE is reported with its flag, EOF after it is not a failure */
static void test_join_table_bye(void **state)
{
    struct srv v;
    struct pe  pes[4];
    uint32_t   failed;
    int32_t    status;
    (void)state;

    srv_start(&v, 4);
    pes_join(&v, pes, 4, 4);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pes[i].rc, KUMI_OK);
        assert_int_equal(pes[i].all.n, 4);
        for (int r = 0; r < 4; r++) {
            assert_int_equal(pes[i].all.len[r], blob_len(r));
            assert_memory_equal(pes[i].all.data + pes[i].all.off[r], pes[r].mine, blob_len(r));
        }
        assert_int_equal(srv_count(&v, i, KUMI_RDV_EV_JOINED), 1);
    }
    for (int i = 0; i < 4; i++)
        assert_int_equal(pthread_create(&pes[i].thread, NULL, pe_round, &pes[i]), 0);
    for (int i = 0; i < 4; i++)
        pthread_join(pes[i].thread, NULL);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(pes[i].rc, KUMI_OK);
        for (int r = 0; r < 4; r++) {
            assert_int_equal(pes[i].all.len[r], (uint32_t)r);
            assert_memory_equal(pes[i].all.data + pes[i].all.off[r], pes[r].mine, (size_t)r);
        }
        kumi_rdv_all_free(&pes[i].all);
    }
    assert_int_equal(kumi_rdv_server_joined(v.s), 4);
    /* all four serviced in turn for longer than TEST_DEAD_S */
    for (double end = kumi_tp_now() + TEST_DEAD_S + 0.8; kumi_tp_now() < end;) {
        for (int i = 0; i < 4; i++)
            assert_int_equal(kumi_rdv_service(&pes[i].c, kumi_tp_now(), &failed, &status), 0);
        usleep(50000);
    }
    for (int i = 0; i < 4; i++)
        assert_int_equal(srv_count(&v, i, KUMI_RDV_EV_SILENT), 0);
    for (int i = 0; i < 4; i++)
        kumi_rdv_leave(&pes[i].c, i != 2);
    assert_int_equal(pes[0].c.fd, -1);
    for (int i = 0; i < 4; i++) {
        assert_int_equal(srv_await(&v, i, KUMI_RDV_EV_BYE, 1), 1);
        assert_int_equal(v.fin[i], i != 2);
        assert_int_equal(srv_count(&v, i, KUMI_RDV_EV_EOF), 0);
    }
    srv_stop(&v);
}

/* while two PEs join: a wrong key, garbage, a wrong job size and a second
 * PE 0 are each closed and logged once; the job is not disturbed */
static void test_rejects(void **state)
{
    struct srv v;
    struct pe  pes[2], bad;
    int        g1, g2;
    (void)state;

    log_begin();
    srv_start(&v, 2);
    g1 = raw_connect(kumi_rdv_server_address(v.s));
    assert_int_equal(write(g1, "GET / HTTP/1.0\r\n\r\n", 18), 18);
    g2 = raw_connect(kumi_rdv_server_address(v.s));   /* says nothing */

    memset(&bad, 0, sizeof(bad));
    bad.rdv = kumi_rdv_server_address(v.s);
    bad.rank = 1; bad.size = 2; bad.bad_key = 1;
    pe_join(&bad);
    assert_int_equal(bad.rc, KUMI_ERR_PEER);
    assert_non_null(strstr(bad.err, "closed the connection"));

    pes_join(&v, pes, 2, 2);
    assert_int_equal(pes[0].rc, KUMI_OK);
    assert_int_equal(pes[1].rc, KUMI_OK);

    memset(&bad, 0, sizeof(bad));
    bad.rdv = kumi_rdv_server_address(v.s);
    bad.rank = 0; bad.size = 2;
    pe_join(&bad);                          /* PE 0 again, right key */
    kumi_rdv_all_free(&bad.all);
    assert_int_equal(bad.rc, KUMI_ERR_PEER);
    bad.rank = 0; bad.size = 3;
    pe_join(&bad);
    assert_int_equal(bad.rc, KUMI_ERR_PEER);

    assert_true(raw_closed_within(g1, TEST_SLACK_S));
    /* the hello deadline (later by a stall of the server's thread) */
    assert_true(raw_closed_within(g2, TEST_DEAD_S + TEST_SLACK_S));
    close(g1);
    close(g2);
    for (int i = 0; i < 2; i++) {
        assert_int_equal(srv_count(&v, i, KUMI_RDV_EV_JOINED), 1);
        assert_int_equal(srv_count(&v, i, KUMI_RDV_EV_EOF), 0);
        kumi_rdv_leave(&pes[i].c, 1);
    }
    pes_free(pes, 2);
    srv_stop(&v);
    log_end();
    assert_int_equal(log_count("wrong job key"), 1);
    assert_int_equal(log_count("not a kumi rendezvous hello"), 1);
    assert_int_equal(log_count("PE 0 already joined"), 1);
    assert_int_equal(log_count("PE 0 of 3, but the job has 2 PEs"), 1);
    assert_int_equal(log_count("no hello in time"), 1);
    assert_int_equal(log_count("kumirun: rendezvous: rejected a connection from 127.0.0.1:"), 5);
}

/* a PE that stops talking is reported SILENT after TEST_DEAD_S, one
 * that closes without BYE is reported EOF; the others are not */
static void test_silence_and_eof(void **state)
{
    struct srv v;
    struct pe  pes[3];
    uint32_t   failed;
    int32_t    status;
    (void)state;

    srv_start(&v, 3);
    double t_join = kumi_tp_now();   /* PE 1 last spoke after this */
    pes_join(&v, pes, 3, 3);
    for (int i = 0; i < 3; i++)
        assert_int_equal(pes[i].rc, KUMI_OK);
    double t0 = kumi_tp_now();
    close(pes[2].c.fd);                      /* PE 2 dies */
    pes[2].c.fd = -1;
    /* PE 0 keeps servicing; PE 1 goes quiet */
    assert_int_equal(pe_service_for(&pes[0].c, TEST_DEAD_S + TEST_SLACK_S, &failed, &status), 0);
    assert_int_equal(srv_count(&v, 2, KUMI_RDV_EV_EOF), 1);
    assert_true(v.ev_at[2][KUMI_RDV_EV_EOF] - t0 < 0.5);
    assert_int_equal(srv_count(&v, 1, KUMI_RDV_EV_SILENT), 1);
    /* no earlier than the dead time after its last word; later by a
     * stall of the server's thread on a loaded machine at most */
    assert_true(v.ev_at[1][KUMI_RDV_EV_SILENT] - t_join > TEST_DEAD_S - 0.1);
    assert_true(v.ev_at[1][KUMI_RDV_EV_SILENT] - t0 < TEST_DEAD_S + TEST_SLACK_S);
    assert_int_equal(srv_count(&v, 0, KUMI_RDV_EV_SILENT), 0);
    assert_int_equal(srv_count(&v, 0, KUMI_RDV_EV_EOF), 0);
    /* the silent PE finds its channel closed by the server */
    assert_int_equal(pe_service_for(&pes[1].c, 1.0, &failed, &status), 1);
    assert_int_equal(failed, KUMI_CTL_FAIL_LAUNCHER);
    kumi_rdv_leave(&pes[0].c, 1);
    pes_free(pes, 3);
    srv_stop(&v);
}

/* FAIL reaches every PE with the failing PE and status; a PE joining
 * after that hears it at once instead of a table */
static void test_fail(void **state)
{
    struct srv v;
    struct pe  pes[3];
    uint32_t   failed = 0;
    int32_t    status = 0;
    (void)state;

    srv_start(&v, 3);
    pes_join(&v, pes, 3, 3);
    pthread_mutex_lock(&v.lock);
    kumi_rdv_server_fail(v.s, 3, 137);
    kumi_rdv_server_fail(v.s, 1, 5);         /* only the first counts */
    pthread_mutex_unlock(&v.lock);
    for (int i = 0; i < 3; i++) {
        assert_int_equal(pe_service_for(&pes[i].c, 2.0, &failed, &status), 1);
        assert_int_equal(failed, 3);
        assert_int_equal(status, 137);
        assert_int_equal(pes[i].c.fd, -1);
        /* closed: it keeps saying so */
        assert_int_equal(kumi_rdv_service(&pes[i].c, kumi_tp_now(), &failed, &status), 1);
    }
    pes_free(pes, 3);
    srv_stop(&v);

    srv_start(&v, 2);
    pthread_mutex_lock(&v.lock);
    kumi_rdv_server_fail(v.s, KUMI_CTL_FAIL_LAUNCHER, 130);
    pthread_mutex_unlock(&v.lock);
    pes_join(&v, pes, 1, 2);
    assert_int_equal(pes[0].rc, KUMI_ERR_PEER);
    assert_non_null(strstr(pes[0].err, "kumirun is ending the job (status 130)"));
    pes_free(pes, 3);
    srv_stop(&v);
}

/* kumirun gone: EOF at once; a PE that joined but hears nothing is not
 * left waiting forever in join */
static void test_server_gone(void **state)
{
    struct srv v;
    struct pe  pes[2];
    uint32_t   failed;
    int32_t    status;
    (void)state;

    srv_start(&v, 2);
    pes_join(&v, pes, 2, 2);
    pes_free(pes, 2);
    srv_stop(&v);
    log_begin();
    assert_int_equal(pe_service_for(&pes[0].c, 1.0, &failed, &status), 1);
    log_end();
    assert_int_equal(failed, KUMI_CTL_FAIL_LAUNCHER);
    assert_int_equal(status, 1);
    assert_int_equal(log_count("rendezvous with kumirun lost"), 1);
    close(pes[1].c.fd);

    /* a listener that accepts but never answers: join gives up after the
     * dead time, naming the address */
    int                lfd = socket(AF_INET, SOCK_STREAM, 0);
    struct sockaddr_in a = { .sin_family = AF_INET };
    socklen_t          al = sizeof(a);
    char               addr[64];
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    assert_int_equal(bind(lfd, (struct sockaddr *)&a, sizeof(a)), 0);
    assert_int_equal(listen(lfd, 4), 0);
    getsockname(lfd, (struct sockaddr *)&a, &al);
    snprintf(addr, sizeof(addr), "127.0.0.1:%u", ntohs(a.sin_port));
    memset(&pes[0], 0, sizeof(pes[0]));
    pes[0].rdv = addr; pes[0].size = 2;
    double t0 = kumi_tp_now();
    pe_join(&pes[0]);
    assert_int_equal(pes[0].rc, KUMI_ERR_PEER);
    /* later by a stall of this thread's own (rdv.h) on a loaded machine */
    assert_true(kumi_tp_now() - t0 < TEST_DEAD_S + TEST_SLACK_S);
    assert_non_null(strstr(pes[0].err, addr));
    assert_non_null(strstr(pes[0].err, "silent"));
    close(lfd);

    /* nobody listening: refused, named */
    memset(&pes[0], 0, sizeof(pes[0]));
    pes[0].rdv = addr; pes[0].size = 2;
    pe_join(&pes[0]);
    assert_int_equal(pes[0].rc, KUMI_ERR_TRANSPORT);
    assert_non_null(strstr(pes[0].err, "cannot reach the rendezvous at"));
    memset(&pes[0], 0, sizeof(pes[0]));
    pes[0].rdv = "localhost"; pes[0].size = 2;
    pe_join(&pes[0]);
    assert_int_equal(pes[0].rc, KUMI_ERR_INVALID);
    assert_non_null(strstr(pes[0].err, "not addr:port"));
}

/* after joining, a malformed message drops the PE as INVALID */
static void test_invalid_after_join(void **state)
{
    struct srv v;
    struct pe  pes[2];
    uint8_t    junk[8] = { 0x77, 1, 0, 0, 0xff, 0xff, 0xff, 0x7f };
    (void)state;

    srv_start(&v, 2);
    pes_join(&v, pes, 2, 2);
    assert_int_equal(write(pes[1].c.fd, junk, sizeof(junk)), 8);
    assert_int_equal(srv_await(&v, 1, KUMI_RDV_EV_INVALID, 1), 1);
    assert_int_equal(srv_count(&v, 0, KUMI_RDV_EV_INVALID), 0);
    kumi_rdv_leave(&pes[0].c, 1);
    close(pes[1].c.fd);
    pes_free(pes, 2);
    srv_stop(&v);
}

/* EXIT: a PE asks the job to end; the server hears it once, every PE
 * (the asking one too, as its answer) gets FAIL naming it and its
 * status; a later request gets the same answer; no EOF is reported for
 * PEs that asked */
static void test_exit(void **state)
{
    struct srv v;
    struct pe  pes[3];
    uint32_t   failed;
    int32_t    status;
    (void)state;

    srv_start(&v, 3);
    pes_join(&v, pes, 3, 3);
    double t0 = kumi_tp_now();
    assert_int_equal(kumi_rdv_request_exit(&pes[1].c, 0, 2.0, &failed, &status), 1);
    assert_true(kumi_tp_now() - t0 < 0.5);
    assert_int_equal(failed, KUMI_TP_FAIL_EXIT | 2);
    assert_true(kumi_tp_fail_is_exit(failed));
    assert_int_equal(status, 0);
    assert_int_equal(pes[1].c.fd, -1);
    assert_int_equal(pe_service_for(&pes[0].c, 2.0, &failed, &status), 1);
    assert_int_equal(failed, KUMI_TP_FAIL_EXIT | 2);
    assert_int_equal(status, 0);
    /* PE 2 asks too, later, with another status: the first request stands */
    assert_int_equal(kumi_rdv_request_exit(&pes[2].c, 255, 2.0, &failed, &status), 1);
    assert_int_equal(failed, KUMI_TP_FAIL_EXIT | 2);
    assert_int_equal(status, 0);
    assert_int_equal(srv_await(&v, 1, KUMI_RDV_EV_EXIT, 1), 1);
    assert_int_equal(srv_await(&v, 2, KUMI_RDV_EV_EXIT, 1), 1);
    assert_int_equal(v.exit_status[2], 255);
    for (int i = 0; i < 3; i++) {
        /* PE 0 closes after FAIL as after any: its EOF is the owner's to
         * ignore; those that asked are done */
        assert_int_equal(srv_count(&v, i, KUMI_RDV_EV_EOF), i == 0);
        assert_int_equal(srv_count(&v, i, KUMI_RDV_EV_INVALID), 0);
    }
    assert_false(kumi_tp_fail_is_exit(KUMI_TP_FAIL_LAUNCHER));
    assert_false(kumi_tp_fail_is_exit(3));
    pes_free(pes, 3);
    srv_stop(&v);

    /* nobody answers (no server loop): the request gives up in time */
    srv_start(&v, 1);
    pes_join(&v, pes, 1, 1);
    v.stop = 1;
    pthread_join(v.thread, NULL);
    t0 = kumi_tp_now();
    assert_int_equal(kumi_rdv_request_exit(&pes[0].c, 3, 0.3, &failed, &status), 0);
    assert_true(kumi_tp_now() - t0 < 1.0);
    assert_int_equal(pes[0].c.fd, -1);
    pes_free(pes, 1);
    kumi_rdv_server_close(v.s);
    pthread_mutex_destroy(&v.lock);
}

/* the server's loop stopped after the PEs joined: the test services it
 * itself, at made-up times */
static void srv_halt(struct srv *v)
{
    v->stop = 1;
    pthread_join(v->thread, NULL);
}

static void srv_halted_close(struct srv *v)
{
    kumi_rdv_server_close(v->s);
    pthread_cond_destroy(&v->pass);
    pthread_mutex_destroy(&v->lock);
    assert_int_equal(v->bad_events, 0);
}

/* A server that was not serviced for longer than the dead time (kumirun
 * starved or stopped) does not take the PEs' silence meanwhile for their
 * loss; silence after it still counts. */
static void test_server_stall(void **state)
{
    struct srv v;
    struct pe  pes[2];
    (void)state;

    srv_start(&v, 2);
    pes_join(&v, pes, 2, 2);
    srv_halt(&v);
    double t = kumi_tp_now();
    kumi_rdv_server_service(v.s, t);
    kumi_rdv_server_service(v.s, t + 4 * TEST_DEAD_S);   /* the stall */
    assert_int_equal(v.ev[0][KUMI_RDV_EV_SILENT] + v.ev[1][KUMI_RDV_EV_SILENT], 0);
    /* PE 0 speaks after the stall, PE 1 does not */
    double now = t + 4 * TEST_DEAD_S;
    for (; now < t + 5 * TEST_DEAD_S + 0.5; now += 0.1) {
        uint32_t failed;
        int32_t  status;
        assert_int_equal(kumi_rdv_service(&pes[0].c, kumi_tp_now() + 1.0, &failed, &status), 0);
        pes[0].c.last_tx = 0;   /* a heartbeat every pass */
        kumi_rdv_server_service(v.s, now);
    }
    assert_int_equal(v.ev[0][KUMI_RDV_EV_SILENT], 0);
    assert_int_equal(v.ev[1][KUMI_RDV_EV_SILENT], 1);
    assert_true(v.ev_at[1][KUMI_RDV_EV_SILENT] > 0);
    kumi_rdv_leave(&pes[0].c, 1);
    close(pes[1].c.fd);
    pes_free(pes, 2);
    srv_halted_close(&v);
}

/* the quiet function: spares rank 1 `spare` times, 0.5 s each */
static int quiet_asked[MAXPE], quiet_spare;
static double quiet_silent[MAXPE];

static double on_quiet(void *arg, int rank, double silent)
{
    (void)arg;
    quiet_asked[rank]++;
    quiet_silent[rank] = silent;
    return rank == 1 && quiet_asked[rank] <= quiet_spare ? 0.5 : 0;
}

/* The owner is asked before a PE is reported SILENT, may keep it (asked
 * again when it says), and one it does not keep is reported at once. */
static void test_quiet(void **state)
{
    struct srv v;
    struct pe  pes[3];
    (void)state;

    memset(quiet_asked, 0, sizeof(quiet_asked));
    quiet_spare = 2;
    srv_start(&v, 3);
    pes_join(&v, pes, 3, 3);
    srv_halt(&v);
    kumi_rdv_server_set_quiet(v.s, on_quiet);
    double t = kumi_tp_now(), now;
    for (now = t; now < t + TEST_DEAD_S + 2.0; now += 0.1) {
        uint32_t failed;
        int32_t  status;
        /* PE 2 keeps talking */
        assert_int_equal(kumi_rdv_service(&pes[2].c, kumi_tp_now() + 1.0, &failed, &status), 0);
        pes[2].c.last_tx = 0;
        kumi_rdv_server_service(v.s, now);
        if (v.ev[1][KUMI_RDV_EV_SILENT] > 0)
            break;
    }
    assert_int_equal(quiet_asked[2], 0);
    assert_int_equal(quiet_asked[0], 1);                 /* not kept: reported */
    assert_int_equal(v.ev[0][KUMI_RDV_EV_SILENT], 1);
    assert_int_equal(quiet_asked[1], 3);                 /* kept twice */
    assert_int_equal(v.ev[1][KUMI_RDV_EV_SILENT], 1);
    assert_true(quiet_silent[1] > TEST_DEAD_S + 0.9 && quiet_silent[1] < TEST_DEAD_S + 1.3);
    assert_int_equal(v.ev[2][KUMI_RDV_EV_SILENT], 0);
    kumi_rdv_leave(&pes[2].c, 1);
    close(pes[0].c.fd);
    close(pes[1].c.fd);
    pes_free(pes, 3);
    srv_halted_close(&v);
}

/* The client side: its own stall is not kumirun's silence; kumirun's
 * silence is its loss after the dead time, or, when kumirun runs on this
 * host and lives (c->launcher), after KUMI_RDV_ALIVE_FACTOR times that. */
static void test_client_silence(void **state)
{
    struct srv v;
    struct pe  pes[3];
    uint32_t   failed;
    int32_t    status;
    double     now, t, end;
    pid_t      gone;
    (void)state;

    srv_start(&v, 3);
    pes_join(&v, pes, 3, 3);
    srv_halt(&v);             /* nobody sends heartbeats from here on */
    t = kumi_tp_now();
    /* PE 0: a stall of its own of 2 dead times, then silence counts */
    assert_int_equal(kumi_rdv_service(&pes[0].c, t, &failed, &status), 0);
    assert_int_equal(kumi_rdv_service(&pes[0].c, t + 2 * TEST_DEAD_S, &failed, &status), 0);
    for (now = t + 2 * TEST_DEAD_S; kumi_rdv_service(&pes[0].c, now, &failed, &status) == 0;
         now += 0.1)
        assert_true(now < t + 4 * TEST_DEAD_S);
    assert_true(now > t + 3 * TEST_DEAD_S - 0.2);
    assert_int_equal(failed, KUMI_CTL_FAIL_LAUNCHER);
    /* PE 1: kumirun is "this process", alive: spared up to the bound */
    pes[1].c.launcher = (long)getpid();
    for (now = t; kumi_rdv_service(&pes[1].c, now, &failed, &status) == 0; now += 0.1)
        assert_true(now < t + (KUMI_RDV_ALIVE_FACTOR + 1) * TEST_DEAD_S);
    assert_true(now > t + KUMI_RDV_ALIVE_FACTOR * TEST_DEAD_S - 0.2);
    /* PE 2: kumirun's pid names a process that is gone: the dead time */
    gone = fork();
    if (gone == 0)
        _exit(0);
    waitpid(gone, NULL, 0);
    pes[2].c.launcher = (long)gone;
    for (now = t; kumi_rdv_service(&pes[2].c, now, &failed, &status) == 0; now += 0.1)
        ;
    end = now;
    assert_true(end > t + TEST_DEAD_S - 0.2 && end < t + TEST_DEAD_S + 0.5);
    pes_free(pes, 3);
    srv_halted_close(&v);
}

/* kumi_rdv_proc_state: alive and asleep, stopped, running, a zombie, gone */
static void test_proc_state(void **state)
{
    int   pipefd[2];
    pid_t kid;
    char  st;
    (void)state;

    assert_int_not_equal(kumi_rdv_proc_state((long)getpid()), 0);
    assert_int_equal(kumi_rdv_proc_state(0), 0);
    assert_int_equal(pipe(pipefd), 0);
    kid = fork();
    if (kid == 0) {
        char c;
        close(pipefd[1]);
        if (read(pipefd[0], &c, 1) < 0)
            _exit(1);
        for (;;)
            ;   /* spins once told to */
    }
    close(pipefd[0]);
    for (int i = 0; i < 100 && (st = kumi_rdv_proc_state((long)kid)) != 'S'; i++)
        usleep(10000);
    assert_int_equal(st, 'S');
    kill(kid, SIGSTOP);
    for (int i = 0; i < 100 && (st = kumi_rdv_proc_state((long)kid)) != 'T'; i++)
        usleep(10000);
    assert_int_equal(st, 'T');
    kill(kid, SIGCONT);
    assert_int_equal(write(pipefd[1], "x", 1), 1);
    for (int i = 0; i < 100 && (st = kumi_rdv_proc_state((long)kid)) != 'R'; i++)
        usleep(10000);
    assert_int_equal(st, 'R');
    kill(kid, SIGKILL);
    for (int i = 0; i < 100 && (st = kumi_rdv_proc_state((long)kid)) != 0; i++)
        usleep(10000);
    assert_int_equal(st, 0);   /* a zombie */
    waitpid(kid, NULL, 0);
    assert_int_equal(kumi_rdv_proc_state((long)kid), 0);
    close(pipefd[1]);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_parse_key),
        cmocka_unit_test(test_join_table_bye),
        cmocka_unit_test(test_rejects),
        cmocka_unit_test(test_silence_and_eof),
        cmocka_unit_test(test_fail),
        cmocka_unit_test(test_server_gone),
        cmocka_unit_test(test_invalid_after_join),
        cmocka_unit_test(test_exit),
        cmocka_unit_test(test_server_stall),
        cmocka_unit_test(test_quiet),
        cmocka_unit_test(test_client_silence),
        cmocka_unit_test(test_proc_state),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}

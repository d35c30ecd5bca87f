/* error.c -- status strings and the one-line error reports of api.md. */
#include <stdarg.h>
#include <stdio.h>
#include <time.h>
#include <stdlib.h>
#include <unistd.h>

#include "rt.h"

const char *kumi_strerror(int status)
{
    switch (status) {
    case KUMI_OK:              return "KUMI_OK: success";
    case KUMI_AGAIN:           return "KUMI_AGAIN: the operation would block";
    case KUMI_ERR_INVALID:     return "KUMI_ERR_INVALID: invalid argument";
    case KUMI_ERR_NOMEM:       return "KUMI_ERR_NOMEM: out of memory";
    case KUMI_ERR_PEER:        return "KUMI_ERR_PEER: a peer PE died or left the job";
    case KUMI_ERR_TIMEOUT:     return "KUMI_ERR_TIMEOUT: timed out";
    case KUMI_ERR_TRANSPORT:   return "KUMI_ERR_TRANSPORT: transport failure";
    case KUMI_ERR_UNSUPPORTED: return "KUMI_ERR_UNSUPPORTED: not supported by this transport or build";
    case KUMI_ERR_STATE:       return "KUMI_ERR_STATE: kumi is not initialized, or already finalized";
    case KUMI_ERR_TRUNCATE:    return "KUMI_ERR_TRUNCATE: message longer than the receive buffer";
    default:                   return "unknown kumi status";
    }
}

static void kumi_rt_vprint(const char *call, const char *fmt, va_list ap)
{
    char line[1024];
    int  n;

    if (kumi_rt.state == 1 || kumi_rt.rank >= 0)
        n = snprintf(line, sizeof(line), "kumi[%d]: %s: ", kumi_rt.rank, call);
    else
        n = snprintf(line, sizeof(line), "kumi: %s: ", call);
    if (n < 0 || (size_t)n >= sizeof(line))
        n = 0;
    vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
    /* one write, so lines of several PEs do not interleave */
    fprintf(stderr, "%s\n", line);
    fflush(stderr);
}

/* The transports' messages (kumi_tp_log): the same lines, the same
 * filter as kumi_rt_log, named after the transport. */
_Static_assert((int)KUMI_TP_LOG_ERROR == (int)KUMI_LOG_ERROR &&
               (int)KUMI_TP_LOG_WARN == (int)KUMI_LOG_WARN &&
               (int)KUMI_TP_LOG_INFO == (int)KUMI_LOG_INFO &&
               (int)KUMI_TP_LOG_DEBUG == (int)KUMI_LOG_DEBUG,
               "kumi_tp_log levels are the runtime's");

static void kumi_rt_tp_log(int level, const char *who, const char *fmt, va_list ap)
{
    if (level > kumi_rt.cfg.log)
        return;
    kumi_rt_vprint(who, fmt, ap);
}

__attribute__((constructor)) static void kumi_rt_tp_log_install(void)
{
    kumi_tp_set_log(kumi_rt_tp_log);
}

_Noreturn void kumi_rt_abort(const char *why)
{
    if (kumi_rt.rank >= 0)
        fprintf(stderr, "kumi[%d]: aborting the job: %s\n", kumi_rt.rank, why);
    else
        fprintf(stderr, "kumi: aborting the job: %s\n", why);
    fflush(NULL);
    /* kumirun sees the non-zero exit and ends the other PEs */
    _exit(1);
}

int kumi_rt_error(int status, const char *call, const char *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    kumi_rt_vprint(call, fmt, ap);
    va_end(ap);
    if (kumi_rt.cfg.abort_on_error)
        kumi_rt_abort("KUMI_ABORT_ON_ERROR is set");
    return status;
}

void kumi_rt_log(int level, const char *fmt, ...)
{
    va_list ap;

    if (level > kumi_rt.cfg.log)
        return;
    va_start(ap, fmt);
    kumi_rt_vprint(level == KUMI_LOG_ERROR ? "error" : level == KUMI_LOG_WARN ? "warning"
                   : level == KUMI_LOG_INFO ? "info" : "debug", fmt, ap);
    va_end(ap);
}

int kumi_rt_state_error(const char *call)
{
    return kumi_rt_error(KUMI_ERR_STATE, call, kumi_rt.state == 0
                         ? "kumi is not initialized (call kumi_init first)"
                         : "kumi is already finalized");
}

/* A PE asked the job to end (kumi_global_exit): no error, the program
 * asked for it; the call still returns KUMI_ERR_PEER, as it cannot
 * complete. */
static int kumi_rt_exit_notice(const char *call, uint32_t failed)
{
    kumi_rt_log(KUMI_LOG_INFO, "%s: PE %u called kumi_global_exit(%d); the job is ending", call,
                (failed & ~KUMI_TP_FAIL_EXIT) - 1,
                (int)__atomic_load_n(kumi_rt.fail_status, __ATOMIC_ACQUIRE));
    return KUMI_ERR_PEER;
}

/* set once this thread has reported a peer's failure */
static _Thread_local int kumi_rt_peer_said;

/* kumi_rt_peer_status's slow path: rc was KUMI_ERR_PEER */
int kumi_rt_peer_report(const char *call)
{
    return kumi_rt_peer_said ? KUMI_ERR_PEER : kumi_rt_peer_error(call);
}

int kumi_rt_peer_error(const char *call)
{
    uint32_t failed = __atomic_load_n(kumi_rt.failed, __ATOMIC_ACQUIRE);

    kumi_rt_peer_said = 1;

    if (failed == 0)
        return kumi_rt_error(KUMI_ERR_PEER, call, "a peer PE is unreachable");
    if (failed == KUMI_CTL_FAIL_LAUNCHER)
        return kumi_rt_error(KUMI_ERR_PEER, call, "the job is being ended by kumirun");
    if (kumi_tp_fail_is_exit(failed))
        return kumi_rt_exit_notice(call, failed);
    /* a lost connection is seen before the launcher's verdict: give it
     * (kumirun: through the control segment or the rendezvous) a moment
     * to say what happened to the PE, so the message carries its exit
     * status; a launcher that ends the job by signal (PMIx) gets longer,
     * so that this PE's report does not pass for the cause */
    static int waited;   /* once: later calls report at once (atomic:
                            KUMI_INIT_THREADS waits fail on many threads) */
    int32_t    status = __atomic_load_n(kumi_rt.fail_status, __ATOMIC_ACQUIRE);
    int        ms     = (int)(kumi_rt.boot.verdict_s * 1000);
    for (int i = 0; i < ms && status == KUMI_TP_STATUS_UNKNOWN
                    && !__atomic_load_n(&waited, __ATOMIC_RELAXED); i++) {
        struct timespec ms = { 0, 1000000L };
        nanosleep(&ms, NULL);
        status = __atomic_load_n(kumi_rt.fail_status, __ATOMIC_ACQUIRE);
    }
    __atomic_store_n(&waited, 1, __ATOMIC_RELAXED);
    failed = __atomic_load_n(kumi_rt.failed, __ATOMIC_ACQUIRE);
    if (failed == KUMI_CTL_FAIL_LAUNCHER)
        return kumi_rt_error(KUMI_ERR_PEER, call, "the job is being ended by kumirun");
    if (kumi_tp_fail_is_exit(failed))   /* the lost connection was its PE leaving */
        return kumi_rt_exit_notice(call, failed);
    if (status == KUMI_TP_STATUS_UNKNOWN)
        return kumi_rt_error(KUMI_ERR_PEER, call, "lost the connection to PE %u; the job is "
                             "ending", failed - 1);
    return kumi_rt_error(KUMI_ERR_PEER, call, "PE %u failed (status %d); the job is ending",
                         failed - 1, (int)status);
}

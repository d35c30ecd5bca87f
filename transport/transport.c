/* transport.c -- the pieces every transport shares: the registry (lookup,
 * the automatic pick), stubs, active message registration, and the
 * doorbell used by blocking waits. */
#include "transport.h"

#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <stdio.h>

#include "transports.h"

#define KUMI_TP_EXTERN(name) extern const struct kumi_tp_ops kumi_tp_##name##_ops;
KUMI_TP_LIST(KUMI_TP_EXTERN)
#undef KUMI_TP_EXTERN

#define KUMI_TP_ENTRY(name) &kumi_tp_##name##_ops,
static const struct kumi_tp_ops *const kumi_tp_all[] = { KUMI_TP_LIST(KUMI_TP_ENTRY) };
#undef KUMI_TP_ENTRY
#define KUMI_TP_COUNT (int)(sizeof(kumi_tp_all) / sizeof(kumi_tp_all[0]))

const struct kumi_tp_ops *kumi_tp_builtin(int i)
{
    return i >= 0 && i < KUMI_TP_COUNT ? kumi_tp_all[i] : NULL;
}

const struct kumi_tp_ops *kumi_tp_lookup(const char *name)
{
    for (int i = 0; i < KUMI_TP_COUNT; i++)
        if (strcmp(kumi_tp_all[i]->name, name) == 0)
            return kumi_tp_all[i];
    return NULL;
}

int kumi_tp_available(const struct kumi_tp_ops *ops, const struct kumi_tp_params *p, char *why,
                      size_t len)
{
    if (len > 0)
        why[0] = '\0';
    if ((ops->flags & KUMI_TP_F_ONE_NODE) && p->boot != NULL && p->boot->nodes > 1) {
        snprintf(why, len, "%s reaches the PEs of one host only, and the job spans %d",
                 ops->name, p->boot->nodes);
        return KUMI_ERR_UNSUPPORTED;
    }
    if (ops->available != NULL)
        return ops->available(p, why, len);
    return KUMI_OK;
}

const struct kumi_tp_ops *kumi_tp_pick(const struct kumi_tp_params *p, char *why, size_t len)
{
    const struct kumi_tp_ops *best = NULL;
    size_t                    at = 0;

    if (len > 0)
        why[0] = '\0';
    for (int i = 0; i < KUMI_TP_COUNT; i++) {
        char one[800];

        /* one that cannot win is not asked: asking loads a plugin */
        if (best != NULL && kumi_tp_all[i]->priority <= best->priority)
            continue;
        if (kumi_tp_available(kumi_tp_all[i], p, one, sizeof(one)) == KUMI_OK) {
            if (best == NULL || kumi_tp_all[i]->priority > best->priority)
                best = kumi_tp_all[i];
        } else if (at < len) {
            at += (size_t)snprintf(why + at, len - at, "%s%s", at ? "; " : "", one);
        }
    }
    return best;
}

#define KUMI_TP_AMO(T)                                                                       \
    do {                                                                                     \
        T *w = (T *)addr, v = (T)operand, o = 0;                                             \
        switch (op) {                                                                        \
        case KUMI_AMO_ADD:       __atomic_add_fetch(w, v, __ATOMIC_SEQ_CST); break;          \
        case KUMI_AMO_FETCH_ADD: o = __atomic_fetch_add(w, v, __ATOMIC_SEQ_CST); break;      \
        case KUMI_AMO_SWAP:      o = __atomic_exchange_n(w, v, __ATOMIC_SEQ_CST); break;     \
        case KUMI_AMO_CSWAP:                                                                 \
            o = (T)compare;                                                                  \
            __atomic_compare_exchange_n(w, &o, v, 0, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);    \
            break;                                                                           \
        case KUMI_AMO_AND:       __atomic_and_fetch(w, v, __ATOMIC_SEQ_CST); break;          \
        case KUMI_AMO_OR:        __atomic_or_fetch(w, v, __ATOMIC_SEQ_CST); break;           \
        case KUMI_AMO_XOR:       __atomic_xor_fetch(w, v, __ATOMIC_SEQ_CST); break;          \
        case KUMI_AMO_FETCH_AND: o = __atomic_fetch_and(w, v, __ATOMIC_SEQ_CST); break;      \
        case KUMI_AMO_FETCH_OR:  o = __atomic_fetch_or(w, v, __ATOMIC_SEQ_CST); break;       \
        case KUMI_AMO_FETCH_XOR: o = __atomic_fetch_xor(w, v, __ATOMIC_SEQ_CST); break;      \
        case KUMI_AMO_FETCH:     o = __atomic_load_n(w, __ATOMIC_SEQ_CST); break;            \
        case KUMI_AMO_SET:       __atomic_store_n(w, v, __ATOMIC_SEQ_CST); break;            \
        case KUMI_AMO_COUNT:     break;                                                      \
        }                                                                                    \
        return o;                                                                            \
    } while (0)

uint64_t kumi_tp_amo_apply(void *addr, enum kumi_amo op, size_t width, uint64_t operand,
                           uint64_t compare)
{
    if (width == 8)
        KUMI_TP_AMO(uint64_t);
    KUMI_TP_AMO(uint32_t);
}

int kumi_tp_unsupported(void)
{
    return KUMI_ERR_UNSUPPORTED;
}

int kumi_tp_am_register(struct kumi_tp *tp, unsigned id, kumi_tp_am_fn fn, void *arg)
{
    if (id >= KUMI_TP_AM_MAX_HANDLERS)
        return KUMI_ERR_INVALID;
    /* a progress thread may be dispatching: arg first, fn published last */
    __atomic_store_n(&tp->am[id].arg, arg, __ATOMIC_RELAXED);
    __atomic_store_n(&tp->am[id].fn, fn, __ATOMIC_RELEASE);
    return KUMI_OK;
}

void kumi_tp_fail(struct kumi_tp *tp, uint32_t failed, int32_t status)
{
    uint32_t zero = 0;

    if (tp->failed == NULL)
        return;
    /* status first, so whoever sees failed set reads a meaningful status;
     * the first verdict stays, unless it had no status and this one has */
    if (__atomic_load_n(tp->failed, __ATOMIC_ACQUIRE) != 0) {
        if (status == KUMI_TP_STATUS_UNKNOWN
            || __atomic_load_n(tp->fail_status, __ATOMIC_ACQUIRE) != KUMI_TP_STATUS_UNKNOWN)
            return;
        __atomic_store_n(tp->fail_status, status, __ATOMIC_RELEASE);
        __atomic_store_n(tp->failed, failed, __ATOMIC_RELEASE);
    } else {
        __atomic_store_n(tp->fail_status, status, __ATOMIC_RELAXED);
        __atomic_compare_exchange_n(tp->failed, &zero, failed, 0, __ATOMIC_SEQ_CST,
                                    __ATOMIC_SEQ_CST);
    }
    if (tp->doorbell != NULL)
        kumi_tp_doorbell_ring(tp->doorbell);
}

/* Shared (not private) futexes: the doorbell lives in memory that several
 * processes map. */
void kumi_tp_doorbell_ring(struct kumi_tp_doorbell *db)
{
    __atomic_thread_fence(__ATOMIC_SEQ_CST);
    if (__atomic_load_n(&db->waiters, __ATOMIC_RELAXED) == 0)
        return;
    __atomic_add_fetch(&db->seq, 1, __ATOMIC_SEQ_CST);
    syscall(SYS_futex, &db->seq, FUTEX_WAKE, INT_MAX, NULL, NULL, 0);
}

void kumi_tp_doorbell_sleep(struct kumi_tp_doorbell *db, uint32_t seq, long timeout_ns)
{
    struct timespec ts = { timeout_ns / 1000000000L, timeout_ns % 1000000000L };

    syscall(SYS_futex, &db->seq, FUTEX_WAIT, seq, &ts, NULL, 0);
}

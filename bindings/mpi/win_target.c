/*
 * win_target.c -- the target's side of one-sided messages (win_int.h):
 * the progress hook that receives them whenever this process is in an
 * MPI call (kumi's waits through kumi_rt_poll_hook_add, MPI_Test and
 * MPI_Iprobe loops through kmpi_poll), executes them one at a time in
 * arrival order, and sends the answers.
 */
#include <stdlib.h>
#include <string.h>

#include "msg.h"
#include "rt.h"
#include "win_int.h"

/* ------------------------------------------------------------ answers in flight
 * The target's answers (get data, status words) are non-blocking sends;
 * their buffers go once the sends are done. */
struct out {
    kumi_request_t kr;
    void          *buf;
    struct out    *next;
};
static struct out *outs;

static void outs_sweep(void)
{
    for (struct out **pp = &outs, *o; (o = *pp) != NULL;)
        if (kumi_msg_req_done(o->kr)) {
            kumi_msg_req_finish(o->kr, NULL);
            *pp = o->next;
            free(o->buf);
            free(o);
        } else
            pp = &o->next;
}

/* sends buf (malloc'd, taken) to pe as the answer tag */
static void answer_buf(int pe, int tag, void *buf, size_t bytes)
{
    struct out *o = malloc(sizeof *o);
    int         krc = KUMI_ERR_NOMEM;

    if (o == NULL || buf == NULL
        || (krc = kumi_msg_isend_ctx("MPI one-sided (target)", buf, bytes, pe, tag,
                                     kumi_team_world(), KMPI_CTX_RMA_REPLY, 0, &o->kr))
               != KUMI_OK) {
        /* the origin waits for it: nothing sensible is left */
        kmpi_error(MPI_COMM_WORLD, kmpi_from_kumi(krc), "MPI one-sided (target)",
                   "cannot answer PE %d (tag %d, %zu bytes): %s", pe, tag, bytes,
                   kumi_strerror(krc));
        free(o);
        free(buf);
        return;
    }
    o->buf  = buf;
    o->next = outs;
    outs    = o;
}

void kmpi_win_answer(int pe, int tag, int32_t status)
{
    int32_t *b = malloc(sizeof *b);

    if (b != NULL)
        *b = status;
    answer_buf(pe, tag, b, sizeof *b);
}

/* ------------------------------------------------------------ the target */

/* the target memory of h in w, or NULL when it lies outside (dynamic
 * windows: outside every attached region) */
static char *target_addr(struct kmpi_win *w, const struct kmpi_win_hdr *h,
                         const struct kmpi_type *t)
{
    if (h->count == 0 || t->size == 0)
        return w->flavor == MPI_WIN_FLAVOR_DYNAMIC ? (char *)(uintptr_t)h->disp
                                                   : (char *)w->base + h->disp;
    if (w->flavor != MPI_WIN_FLAVOR_DYNAMIC)
        return (char *)w->base + h->disp;   /* the origin checked the range */
    MPI_Aint  lo = t->true_lb + (t->extent < 0 ? (MPI_Aint)(h->count - 1) * t->extent : 0);
    MPI_Aint  hi = t->true_lb + t->true_extent
                   + (t->extent > 0 ? (MPI_Aint)(h->count - 1) * t->extent : 0);
    uintptr_t a  = (uintptr_t)h->disp;
    for (int i = 0; i < w->nregions; i++) {
        uintptr_t b = w->regions[i].base, e = b + w->regions[i].size;
        if (a + (uintptr_t)lo >= b && a + (uintptr_t)hi <= e)
            return (char *)a;
    }
    return NULL;
}

/* accumulate the packed data (count elements of t's signature) into addr */
int kmpi_win_acc_apply(int op, const void *data, size_t count, const struct kmpi_type *t,
                     char *addr)
{
    const struct kmpi_type *b = kmpi_type(t->basic);
    size_t                  n = count * t->nbasic, wb = kmpi_work_bytes(t, count);
    void                   *in, *tw;
    int                     rc;

    if (op == MPI_NO_OP || count == 0)
        return MPI_SUCCESS;
    if (op == MPI_REPLACE) {
        kmpi_unpack(data, count, t, addr);
        return MPI_SUCCESS;
    }
    if (b == NULL)
        return MPI_ERR_TYPE;
    in = malloc(wb);
    tw = malloc(wb);
    if (in == NULL || tw == NULL) {
        free(in);
        free(tw);
        return MPI_ERR_NO_MEM;
    }
    kmpi_unpack(data, n, b, in);   /* packed -> the C array of the basic type */
    rc = kmpi_work_in(addr, count, t, tw);
    if (rc == MPI_SUCCESS)
        rc = kmpi_op_apply_basic(op, t->basic, in, tw, n);
    if (rc == MPI_SUCCESS)
        rc = kmpi_work_out(tw, count, t, addr);
    free(in);
    free(tw);
    return rc;
}

/* executes one request message (len bytes at m) from world PE pe */
static void execute(const char *m, size_t len, int pe)
{
    struct kmpi_win_hdr h;
    struct kmpi_win    *w;

    if (len < sizeof h)
        return;
    memcpy(&h, m, sizeof h);
    w = kmpi_win_by_id(h.win);
    if (w == NULL || h.origin < 0 || h.origin >= w->size) {
        if (h.tag >= 0 && h.kind != KW_GET && h.kind != KW_GACC && h.kind != KW_CAS)
            kmpi_win_answer(pe, h.tag, MPI_ERR_WIN);
        return;
    }
    if (h.kind >= KW_FLUSH) {
        kmpi_win_serve_sync(w, &h, pe);
        return;
    }
    void                   *tmem = NULL;
    const struct kmpi_type *t;
    const char             *data = m + sizeof h + h.tdesc;
    if (sizeof h + h.tdesc + h.bytes > len)
        return;
    t = (h.aux & 1) ? kmpi_win_type_unwire(m + sizeof h, h.tdesc, &tmem) : kmpi_type(h.tbasic);
    if (t == NULL)
        return;
    char  *addr = target_addr(w, &h, t);
    size_t rb   = h.count * t->size;   /* the answer's bytes */
    void  *ans  = NULL;
    if (h.kind == KW_GET || h.kind == KW_GACC || h.kind == KW_CAS)
        ans = calloc(1, rb > 0 ? rb : 1);
    if (addr == NULL) {
        w->err_of[h.origin] = MPI_ERR_RMA_RANGE;
    } else {
        int rc = MPI_SUCCESS;
        switch (h.kind) {
        case KW_PUT:
            kmpi_unpack(data, h.count, t, addr);
            break;
        case KW_GET:
            if (ans != NULL)
                kmpi_pack(addr, h.count, t, ans);
            break;
        case KW_ACC:
            rc = kmpi_win_acc_apply(h.op, data, h.count, t, addr);
            break;
        case KW_GACC:
            if (ans != NULL)
                kmpi_pack(addr, h.count, t, ans);
            rc = kmpi_win_acc_apply(h.op, data, h.count, t, addr);
            break;
        case KW_CAS:
            /* data: the new value, then the compare value (one element each) */
            if (ans != NULL)
                memcpy(ans, addr, t->size);
            if (memcmp(addr, data + t->size, t->size) == 0)
                memcpy(addr, data, t->size);
            break;
        }
        if (rc != MPI_SUCCESS)
            w->err_of[h.origin] = rc;
    }
    if (h.kind == KW_GET || h.kind == KW_GACC || h.kind == KW_CAS)
        answer_buf(pe, h.tag, ans, rb);
    free(tmem);
}

/* Serves the requests that arrived: probe, receive, execute. */
static char  *rbuf;
static size_t rcap;

static int serve(void)
{
    int served = 0;

    outs_sweep();
    for (int i = 0; i < 64; i++) {
        kumi_status_t st;
        int           flag = 0;
        kumi_request_t kr;

        if (kumi_msg_probe_ctx("MPI one-sided (target)", KUMI_ANY_SOURCE, KUMI_ANY_TAG,
                               kumi_team_world(), KMPI_CTX_RMA, 0, &flag, &st) != KUMI_OK
            || !flag)
            break;
        if (st.bytes > rcap) {
            char *b = realloc(rbuf, st.bytes);
            if (b == NULL)
                break;
            rbuf = b;
            rcap = st.bytes;
        }
        if (kumi_msg_irecv_ctx("MPI one-sided (target)", rbuf, st.bytes, st.source, st.tag,
                               kumi_team_world(), KMPI_CTX_RMA, &kr) != KUMI_OK)
            break;
        if (!kumi_msg_req_done(kr) && kumi_msg_req_wait("MPI one-sided (target)", kr) != KUMI_OK)
            break;
        kumi_msg_req_finish(kr, NULL);
        execute(rbuf, st.bytes, st.source);
        served++;
    }
    return served;
}

static int hook_busy;

static int win_hook(void)
{
    int served;

    if (hook_busy || kmpi_state != 1 || kmpi_win_progress_on == 0)
        return 0;
    hook_busy = 1;
    served    = serve();
    hook_busy = 0;
    return served;
}

/* added with the first window, kept for the process's life (the hook
 * does nothing while no window is alive) */
void kmpi_win_hook_install(void)
{
    if (kumi_rt_poll_hook_add(win_hook) != KUMI_OK)
        kumi_rt_abort("MPI: no room for the one-sided target's poll hook");
}

int kmpi_win_progress_on;   /* windows alive (win.c counts them) */

void kmpi_win_progress(void)
{
    if (!hook_busy) {
        hook_busy = 1;
        serve();
        hook_busy = 0;
    }
}

int kmpi_win_poll(const char *call)
{
    return kmpi_poll(call);
}

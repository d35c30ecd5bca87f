/*
 * win.c -- windows (MPI-3.1 11.2): creation of every flavor (the shared
 * segment of MPI_Win_allocate and MPI_Win_allocate_shared),
 * MPI_Win_free, MPI_Win_shared_query, attach and detach. The window's
 * group, name, info, attributes and error handlers are win_attr.c's, the
 * communication and synchronization win_rma.c's, win_target.c's and
 * win_sync.c's; win_int.h says how the whole works.
 *
 * A window is a dup of its communicator (the creation, fence and free
 * collectives run on it, never matching the program's), an id agreed by
 * its members (the largest next id among them: the same on all, unique
 * among each member's windows) that is also its handle, and every
 * member's base, size and displacement unit, gathered at creation so an
 * origin checks its accesses against the target's window itself.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "win_int.h"

static struct kmpi_win **wins;      /* index: id */
static int               nwins;     /* slots */
static int               next_id = 1;

struct kmpi_win *kmpi_win_get(MPI_Win w)
{
    return w > 0 && w < nwins ? wins[w] : NULL;
}

struct kmpi_win *kmpi_win_by_id(int id)
{
    return kmpi_win_get(id);
}

int kmpi_win_error(struct kmpi_win *w, int code, const char *call, const char *fmt, ...)
{
    char    what[512];
    va_list ap;
    int     n = 0;

    if (w != NULL)
        n = w->name[0] != '\0' ? snprintf(what, sizeof what, "window %d '%s': ", w->id, w->name)
                               : snprintf(what, sizeof what, "window %d: ", w->id);
    va_start(ap, fmt);
    vsnprintf(what + n, sizeof what - (size_t)n, fmt, ap);
    va_end(ap);
    if (w == NULL)
        return kmpi_error(MPI_COMM_WORLD, code, call, "%s", what);
    if (w->defer > 0) {
        if (w->d_code == MPI_SUCCESS) {
            w->d_code = code;
            w->d_krc  = KUMI_OK;
            w->d_call = call;
            memcpy(w->d_what, what, sizeof what);
        }
        return code;
    }
    return kmpi_errh_raise(w->errh, w->id, code, call, what);
}

int kmpi_win_error_kumi(struct kmpi_win *w, int kumi_rc, const char *call, const char *what)
{
    if (w->defer > 0) {
        if (w->d_code == MPI_SUCCESS) {
            w->d_code = kmpi_from_kumi(kumi_rc);
            w->d_krc  = kumi_rc;
            w->d_call = call;
            snprintf(w->d_what, sizeof w->d_what, "%s", what);
        }
        return kmpi_from_kumi(kumi_rc);
    }
    return kmpi_error_kumi(w->comm, kumi_rc, call, what);
}

void kmpi_win_defer(struct kmpi_win *w)
{
    if (w->defer++ == 0)
        w->d_code = MPI_SUCCESS;
}

int kmpi_win_undefer(struct kmpi_win *w)
{
    if (--w->defer > 0 || w->d_code == MPI_SUCCESS)
        return w->d_code;
    int code = w->d_code;
    w->d_code = MPI_SUCCESS;
    if (w->d_krc != KUMI_OK)
        return kmpi_error_kumi(w->comm, w->d_krc, w->d_call, w->d_what);
    return kmpi_errh_raise(w->errh, w->id, code, w->d_call, w->d_what);
}

struct kmpi_win *kmpi_win_check(const char *call, MPI_Win win, int *rc)
{
    struct kmpi_win *w;

    if ((*rc = kmpi_live(call)) != MPI_SUCCESS)
        return NULL;
    if ((w = kmpi_win_get(win)) == NULL)
        *rc = kmpi_win_error(NULL, MPI_ERR_WIN, call, "%d is no window", win);
    return w;
}

struct kmpi_win *kmpi_win_check_arg(const char *call, MPI_Win win, int ok, const char *what,
                                    int *rc)
{
    struct kmpi_win *w = kmpi_win_check(call, win, rc);

    if (w != NULL && !ok) {
        *rc = kmpi_win_error(w, MPI_ERR_ARG, call, "%s is NULL", what);
        return NULL;
    }
    return w;
}

/* ------------------------------------------------------------ creation */

static void win_release(struct kmpi_win *w)
{
    if (w == NULL)
        return;
    free(w->pes);
    free(w->bases);
    free(w->sizes);
    free(w->units);
    free(w->regions);
    free(w->locked);
    free(w->touched);
    free(w->posts);
    free(w->err_of);
    free(w->start_group);
    free(w->dbase);
    free(w->pids);
    if (w->info != MPI_INFO_NULL)
        PMPI_Info_free(&w->info);
    kmpi_errh_unref(w->errh);
    free(w);
}

/* comm as a constructor takes it: an intracommunicator (MPI-3.1 11.2);
 * NULL with *rc */
static struct kmpi_comm *ctor_comm(const char *call, MPI_Comm comm, int *rc)
{
    struct kmpi_comm *c = kmpi_comm(comm);

    if (c == NULL)
        *rc = kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator", comm);
    else if (c->inter)
        *rc = kmpi_inter_refuse(call, comm);
    return c != NULL && !c->inter ? c : NULL;
}

/* The collective part every flavor shares: w's communicator, id, arrays
 * and every member's base/size/unit. MPI_SUCCESS or the error raised on
 * comm (every member fails alike except for memory). */
static int win_setup(const char *call, MPI_Comm comm, MPI_Info info, int flavor, void *base,
                     MPI_Aint size, int disp_unit, struct kmpi_win **out)
{
    struct kmpi_win *w;
    int              rc, id, n;

    *out = NULL;
    if (ctor_comm(call, comm, &rc) == NULL)
        return rc;
    if (info != MPI_INFO_NULL) {
        int nk;
        if (PMPI_Info_get_nkeys(info, &nk) != MPI_SUCCESS)
            return MPI_ERR_INFO;
    }
    if ((w = calloc(1, sizeof *w)) == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a window");
    w->errh      = MPI_ERRORS_ARE_FATAL;
    w->info      = MPI_INFO_NULL;
    w->lock_excl = -1;
    w->flavor    = flavor;
    w->base      = base;
    w->wsize     = size;
    w->disp_unit = disp_unit;
    if ((rc = PMPI_Comm_dup(comm, &w->comm)) != MPI_SUCCESS) {
        free(w);
        return rc;
    }
    PMPI_Comm_rank(w->comm, &w->rank);
    PMPI_Comm_size(w->comm, &w->size);
    n = w->size;
    w->pes     = malloc((size_t)n * sizeof(int));
    w->bases   = malloc((size_t)n * sizeof(uint64_t));
    w->sizes   = malloc((size_t)n * sizeof(MPI_Aint));
    w->units   = malloc((size_t)n * sizeof(int));
    w->locked  = calloc((size_t)n, 1);
    w->touched = calloc((size_t)n, 1);
    w->posts   = calloc((size_t)n, sizeof(int));
    w->err_of  = calloc((size_t)n, sizeof(int));
    int nomem  = !w->pes || !w->bases || !w->sizes || !w->units || !w->locked || !w->touched
                || !w->posts || !w->err_of;
    struct { uint64_t base; int64_t size; int64_t unit; int64_t nomem; int64_t pid; } mine, *all;
    mine.base  = (uint64_t)(uintptr_t)base;
    mine.size  = size;
    mine.unit  = disp_unit;
    mine.nomem = nomem || (w->pids = malloc((size_t)n * sizeof(int))) == NULL;
    mine.pid   = getpid();
    all = malloc((size_t)n * sizeof *all);
    /* the id, then everybody's numbers (an allgather everyone joins) */
    rc = PMPI_Allreduce(&next_id, &id, 1, MPI_INT, MPI_MAX, w->comm);
    if (rc == MPI_SUCCESS)
        rc = PMPI_Allgather(&mine, (int)sizeof mine, MPI_BYTE, all != NULL ? (void *)all : (void *)&mine,
                            all != NULL ? (int)sizeof mine : 0, MPI_BYTE, w->comm);
    if (rc != MPI_SUCCESS || all == NULL || nomem) {
        free(all);
        PMPI_Comm_free(&w->comm);
        win_release(w);
        return rc != MPI_SUCCESS ? rc : kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for a window");
    }
    for (int i = 0; i < n; i++) {
        if (all[i].nomem) {
            free(all);
            PMPI_Comm_free(&w->comm);
            win_release(w);
            return kmpi_error(comm, MPI_ERR_NO_MEM, call, "rank %d had no memory for the window", i);
        }
        w->bases[i] = all[i].base;
        w->sizes[i] = (MPI_Aint)all[i].size;
        w->units[i] = (int)all[i].unit;
        w->pids[i]  = (int)all[i].pid;
    }
    /* MPI_Win_create's memory on this host: puts and gets of contiguous
     * data go by cross-memory attach (win_rma.c), without the target */
    w->cma = flavor == MPI_WIN_FLAVOR_CREATE && strcmp(kumi_transport_name(), "shm") == 0;
    free(all);
    kumi_team_t team = kmpi_comm_fast(w->comm)->team;
    for (int i = 0; i < n; i++)
        w->pes[i] = kumi_team_pe(team, i);
    if (id >= nwins) {
        int               m = nwins ? nwins : 16;
        struct kmpi_win **t;
        while (m <= id)
            m *= 2;
        if ((t = realloc(wins, (size_t)m * sizeof(*t))) == NULL) {
            PMPI_Comm_free(&w->comm);
            win_release(w);
            return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for the window table");
        }
        memset(t + nwins, 0, (size_t)(m - nwins) * sizeof(*t));
        wins  = t;
        nwins = m;
    }
    w->id     = id;
    wins[id]  = w;
    next_id   = id + 1;
    if (info != MPI_INFO_NULL)
        PMPI_Info_dup(info, &w->info);
    kmpi_win_hook_install();
    kmpi_win_progress_on++;
    /* no member sends to the window before every member knows its id */
    if ((rc = PMPI_Barrier(w->comm)) != MPI_SUCCESS)
        return rc;
    *out = w;
    return MPI_SUCCESS;
}

static int comm_one_node(struct kmpi_comm *c);
static int allocate_in_shm(const char *call, MPI_Aint size, int disp_unit, MPI_Info info,
                           MPI_Comm comm, struct kmpi_comm *c, int flavor, void **basep,
                           struct kmpi_win **out);

static int check_size_unit(const char *call, MPI_Comm comm, MPI_Aint size, int disp_unit)
{
    if (size < 0)
        return kmpi_error(comm, MPI_ERR_SIZE, call, "size %lld is negative", (long long)size);
    if (disp_unit <= 0)
        return kmpi_error(comm, MPI_ERR_DISP, call, "disp_unit %d is not positive", disp_unit);
    return MPI_SUCCESS;
}

/* every constructor's end: the handle, and the base into *baseptr when
 * the call has one */
static int win_out(const struct kmpi_win *w, void *base, void *baseptr, MPI_Win *win)
{
    if (baseptr != NULL)
        memcpy(baseptr, &base, sizeof base);
    *win = w->id;
    return MPI_SUCCESS;
}

/* MPI_Win_create and MPI_Win_create_dynamic (MPI_BOTTOM, 0, 1) */
static int win_create(const char *call, void *base, MPI_Aint size, int disp_unit, MPI_Info info,
                      MPI_Comm comm, int flavor, MPI_Win *win)
{
    struct kmpi_win *w;
    int              rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (win == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "win is NULL");
    if ((rc = check_size_unit(call, comm, size, disp_unit)) != MPI_SUCCESS)
        return rc;
    if (base == NULL && size > 0)
        return kmpi_error(comm, MPI_ERR_BASE, call, "base is NULL with size %lld", (long long)size);
    if ((rc = win_setup(call, comm, info, flavor, base, size, disp_unit, &w)) != MPI_SUCCESS)
        return rc;
    return win_out(w, NULL, NULL, win);
}

#pragma weak MPI_Win_create = PMPI_Win_create
int PMPI_Win_create(void *base, MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                    MPI_Win *win)
{
    return win_create("MPI_Win_create", base, size, disp_unit, info, comm,
                      MPI_WIN_FLAVOR_CREATE, win);
}

#pragma weak MPI_Win_allocate = PMPI_Win_allocate
int PMPI_Win_allocate(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm, void *baseptr,
                      MPI_Win *win)
{
    static const char call[] = "MPI_Win_allocate";
    struct kmpi_win  *w;
    void             *base = NULL;
    int               rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (win == NULL || baseptr == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "win or baseptr is NULL");
    if ((rc = check_size_unit(call, comm, size, disp_unit)) != MPI_SUCCESS)
        return rc;
    struct kmpi_comm *c = ctor_comm(call, comm, &rc);
    if (c == NULL)
        return rc;
    if (strcmp(kumi_transport_name(), "shm") == 0 && comm_one_node(c)) {
        if ((rc = allocate_in_shm(call, size, disp_unit, info, comm, c, MPI_WIN_FLAVOR_ALLOCATE,
                                  &base, &w)) != MPI_SUCCESS)
            return rc;
        return win_out(w, base, baseptr, win);
    }
    if (posix_memalign(&base, 64, size > 0 ? (size_t)size : 1) != 0)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory for %lld bytes", (long long)size);
    if ((rc = win_setup(call, comm, info, MPI_WIN_FLAVOR_ALLOCATE, base, size, disp_unit, &w))
        != MPI_SUCCESS) {
        free(base);
        return rc;
    }
    return win_out(w, base, baseptr, win);
}

/* ------------------------------------------------------------ shared memory
 * One mapping that rank 0 of comm creates and the others open: a header
 * of KMPI_WIN_SHM_HDR lock words per rank (win_sync.c's passive-target
 * locks and win_rma.c's accumulate lock, each on its own cache line),
 * then rank i's part after rank i - 1's, each rounded up to 64 bytes
 * (MPI-3.1 11.2.3: contiguous by default). Used by
 * MPI_Win_allocate_shared, and by MPI_Win_allocate when every member is
 * reachable by load and store (the shm transport): origins then read,
 * write and accumulate the target's memory themselves. */
static size_t shm_round(MPI_Aint size)
{
    return ((size_t)size + 63) & ~(size_t)63;
}

/* 1 when every member of c is on this host, else 0 */
static int comm_one_node(struct kmpi_comm *c)
{
    int node = kumi_pe_node(kumi_team_pe(c->team, 0));

    for (int i = 1; i < c->size; i++)
        if (kumi_pe_node(kumi_team_pe(c->team, i)) != node)
            return 0;
    return 1;
}

/* maps the segment; MPI_SUCCESS with *map, *bytes and my part's base, or
 * the error raised on comm (collective: every member gets the same class) */
static int shm_map(const char *call, MPI_Comm comm, struct kmpi_comm *c, MPI_Aint size,
                   void **map, size_t *bytes, void **mine)
{
    int      n = c->size, me = c->rank, rc, ok = 1, all_ok, fd = -1;
    int64_t  part = (int64_t)shm_round(size), *all = malloc((size_t)n * sizeof *all);
    size_t   total = (size_t)n * KMPI_WIN_SHM_HDR * sizeof(uint64_t), off = 0;
    char     name[64];
    void    *m = MAP_FAILED;

    if (all == NULL)
        return kmpi_error(comm, MPI_ERR_NO_MEM, call, "no memory");
    if ((rc = PMPI_Allgather(&part, 1, MPI_INT64_T, all, 1, MPI_INT64_T, comm)) != MPI_SUCCESS) {
        free(all);
        return rc;
    }
    for (int i = 0; i < n; i++) {
        if (i == me)
            off = total;
        total += (size_t)all[i];
    }
    free(all);
    snprintf(name, sizeof name, "/kumi-mpiwin-%d-%d", (int)getpid(), next_id);
    if ((rc = PMPI_Bcast(name, (int)sizeof name, MPI_CHAR, 0, comm)) != MPI_SUCCESS)
        return rc;
    if (me == 0) {
        fd = shm_open(name, O_RDWR | O_CREAT | O_EXCL, 0600);
        if (fd < 0 || ftruncate(fd, (off_t)total) != 0)
            ok = 0;
    }
    PMPI_Bcast(&ok, 1, MPI_INT, 0, comm);
    if (ok && me != 0 && (fd = shm_open(name, O_RDWR, 0600)) < 0)
        ok = 0;
    if (ok && (m = mmap(NULL, total, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED)
        ok = 0;
    int err = errno;
    if (fd >= 0)
        close(fd);
    PMPI_Allreduce(&ok, &all_ok, 1, MPI_INT, MPI_MIN, comm);
    if (me == 0)
        shm_unlink(name);
    if (!all_ok) {
        if (m != MAP_FAILED)
            munmap(m, total);
        return kmpi_error(comm, MPI_ERR_RMA_SHARED, call, "a rank could not map shared memory "
                          "(%s)", ok ? "another rank" : strerror(err));
    }
    *map   = m;
    *bytes = total;
    *mine  = (char *)m + off;
    return MPI_SUCCESS;
}

/* w's view of the segment: every member's part and lock words */
static int shm_attach(struct kmpi_win *w, void *map, size_t bytes)
{
    size_t off = (size_t)w->size * KMPI_WIN_SHM_HDR * sizeof(uint64_t);

    w->shm       = map;
    w->shm_bytes = bytes;
    w->locks     = map;
    if ((w->dbase = malloc((size_t)w->size * sizeof(char *))) == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < w->size; i++) {
        w->dbase[i] = (char *)map + off;
        off += shm_round(w->sizes[i]);
    }
    return MPI_SUCCESS;
}

static int allocate_in_shm(const char *call, MPI_Aint size, int disp_unit, MPI_Info info,
                           MPI_Comm comm, struct kmpi_comm *c, int flavor, void **basep,
                           struct kmpi_win **out)
{
    void  *map = NULL, *base = NULL;
    size_t bytes = 0;
    int    rc;

    if ((rc = shm_map(call, comm, c, size, &map, &bytes, &base)) != MPI_SUCCESS)
        return rc;
    if ((rc = win_setup(call, comm, info, flavor, base, size, disp_unit, out)) != MPI_SUCCESS) {
        munmap(map, bytes);
        return rc;
    }
    if (shm_attach(*out, map, bytes) != MPI_SUCCESS)
        return kmpi_win_error(*out, MPI_ERR_NO_MEM, call, "no memory");
    *basep = base;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_allocate_shared = PMPI_Win_allocate_shared
int PMPI_Win_allocate_shared(MPI_Aint size, int disp_unit, MPI_Info info, MPI_Comm comm,
                             void *baseptr, MPI_Win *win)
{
    static const char call[] = "MPI_Win_allocate_shared";
    struct kmpi_comm *c;
    struct kmpi_win  *w;
    void             *base;
    int               rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if ((c = ctor_comm(call, comm, &rc)) == NULL)
        return rc;
    if (win == NULL || baseptr == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "win or baseptr is NULL");
    if ((rc = check_size_unit(call, comm, size, disp_unit)) != MPI_SUCCESS)
        return rc;
    if (!comm_one_node(c))
        return kmpi_error(comm, MPI_ERR_RMA_SHARED, call, "the communicator's ranks are on "
                          "different hosts: their memory cannot be shared");
    if ((rc = allocate_in_shm(call, size, disp_unit, info, comm, c, MPI_WIN_FLAVOR_SHARED, &base,
                              &w)) != MPI_SUCCESS)
        return rc;
    return win_out(w, base, baseptr, win);
}

/* w of a flavor's own call: valid and made by maker (flavor); NULL with *rc */
static struct kmpi_win *flavor_win(const char *call, MPI_Win win, int flavor, const char *maker,
                                   int *rc)
{
    struct kmpi_win *w = kmpi_win_check(call, win, rc);

    if (w != NULL && w->flavor != flavor) {
        *rc = kmpi_win_error(w, MPI_ERR_RMA_FLAVOR, call, "not made by %s", maker);
        return NULL;
    }
    return w;
}

#pragma weak MPI_Win_shared_query = PMPI_Win_shared_query
int PMPI_Win_shared_query(MPI_Win win, int rank, MPI_Aint *size, int *disp_unit, void *baseptr)
{
    static const char call[] = "MPI_Win_shared_query";
    int               rc;
    struct kmpi_win  *w = flavor_win(call, win, MPI_WIN_FLAVOR_SHARED, "MPI_Win_allocate_shared",
                                     &rc);

    if (w == NULL)
        return rc;
    if (rank != MPI_PROC_NULL && (rank < 0 || rank >= w->size))
        return kmpi_win_error(w, MPI_ERR_RANK, call, "rank %d is not in 0..%d", rank, w->size - 1);
    if (size == NULL || disp_unit == NULL || baseptr == NULL)
        return kmpi_win_error(w, MPI_ERR_ARG, call, "size, disp_unit or baseptr is NULL");
    int r = rank;
    if (rank == MPI_PROC_NULL)   /* the lowest rank with memory */
        for (r = 0; r < w->size - 1 && w->sizes[r] == 0; r++)
            ;
    void *base = w->dbase[r];   /* the same mapping, at this process's address */
    if (rank == MPI_PROC_NULL && w->sizes[r] == 0)
        base = NULL;
    *size      = w->sizes[r];
    *disp_unit = w->units[r];
    memcpy(baseptr, &base, sizeof base);
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_create_dynamic = PMPI_Win_create_dynamic
int PMPI_Win_create_dynamic(MPI_Info info, MPI_Comm comm, MPI_Win *win)
{
    return win_create("MPI_Win_create_dynamic", MPI_BOTTOM, 0, 1, info, comm,
                      MPI_WIN_FLAVOR_DYNAMIC, win);
}

#pragma weak MPI_Win_attach = PMPI_Win_attach
int PMPI_Win_attach(MPI_Win win, void *base, MPI_Aint size)
{
    static const char call[] = "MPI_Win_attach";
    int               rc;
    struct kmpi_win  *w = flavor_win(call, win, MPI_WIN_FLAVOR_DYNAMIC, "MPI_Win_create_dynamic",
                                     &rc);

    if (w == NULL)
        return rc;
    if (size < 0)
        return kmpi_win_error(w, MPI_ERR_SIZE, call, "size %lld is negative", (long long)size);
    if (base == NULL && size > 0)
        return kmpi_win_error(w, MPI_ERR_BASE, call, "base is NULL");
    uintptr_t b = (uintptr_t)base;
    for (int i = 0; i < w->nregions; i++)
        if (b < w->regions[i].base + w->regions[i].size && w->regions[i].base < b + (size_t)size)
            return kmpi_win_error(w, MPI_ERR_RMA_ATTACH, call,
                                  "[%p, +%lld) overlaps memory attached already", base,
                                  (long long)size);
    if (w->nregions == w->cap_regions) {
        int                     m = w->cap_regions ? 2 * w->cap_regions : 8;
        struct kmpi_win_region *t = realloc(w->regions, (size_t)m * sizeof(*t));
        if (t == NULL)
            return kmpi_win_error(w, MPI_ERR_NO_MEM, call, "no memory");
        w->regions     = t;
        w->cap_regions = m;
    }
    w->regions[w->nregions].base = b;
    w->regions[w->nregions].size = (size_t)size;
    w->nregions++;
    return MPI_SUCCESS;
}

#pragma weak MPI_Win_detach = PMPI_Win_detach
int PMPI_Win_detach(MPI_Win win, const void *base)
{
    static const char call[] = "MPI_Win_detach";
    int               rc;
    struct kmpi_win  *w = flavor_win(call, win, MPI_WIN_FLAVOR_DYNAMIC, "MPI_Win_create_dynamic",
                                     &rc);

    if (w == NULL)
        return rc;
    for (int i = 0; i < w->nregions; i++)
        if (w->regions[i].base == (uintptr_t)base) {
            w->regions[i] = w->regions[--w->nregions];
            return MPI_SUCCESS;
        }
    return kmpi_win_error(w, MPI_ERR_RMA_ATTACH, call, "%p was not attached", base);
}

#pragma weak MPI_Win_free = PMPI_Win_free
int PMPI_Win_free(MPI_Win *win)
{
    static const char call[] = "MPI_Win_free";
    int               rc = kmpi_live(call);
    struct kmpi_win  *w;

    if (rc != MPI_SUCCESS)
        return rc;
    if (win == NULL || (w = kmpi_win_get(*win)) == NULL)
        return kmpi_win_error(NULL, MPI_ERR_WIN, call, "%d is no window", win ? *win : 0);
    if (w->lock_all || w->start_group != NULL || w->post_active)
        return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call, "an epoch is still open (%s)",
                              w->lock_all ? "MPI_Win_lock_all" : w->start_group ? "MPI_Win_start"
                                                                                : "MPI_Win_post");
    for (int i = 0; i < w->size; i++)
        if (w->locked[i])
            return kmpi_win_error(w, MPI_ERR_RMA_SYNC, call,
                                  "the lock of rank %d is still held", i);
    if ((rc = kmpi_win_wait_local(call, w, -1)) != MPI_SUCCESS)
        return rc;
    /* every origin has completed its accesses here once all arrive */
    if ((rc = PMPI_Barrier(w->comm)) != MPI_SUCCESS)
        return rc;
    if ((rc = kmpi_win_attrs_delete_all(call, w)) != MPI_SUCCESS)
        return rc;
    wins[w->id] = NULL;
    kmpi_win_progress_on--;
    kmpi_win_pend_drop(w);
    for (struct kmpi_win_waiter *q = w->waiters, *nx; q != NULL; q = nx) {
        nx = q->next;
        free(q);
    }
    if (w->shm != NULL)
        munmap(w->shm, w->shm_bytes);
    else if (w->flavor == MPI_WIN_FLAVOR_ALLOCATE)
        free(w->base);
    PMPI_Comm_free(&w->comm);
    win_release(w);
    *win = MPI_WIN_NULL;
    return MPI_SUCCESS;
}

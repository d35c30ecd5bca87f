/*
 * type_util.h -- what the datatype tests (tests/mpi/type_*.c) share: a
 * check counter, error class names, and the typemap check that packs a
 * type and compares the bytes with a typemap written out by hand. Plain
 * MPI: the tests build with any MPI's mpicc, and print the same lines.
 */
#ifndef TYPE_UTIL_H
#define TYPE_UTIL_H

#include <mpi.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int tu_checks, tu_failures;
static int tu_quiet;   /* tu_typemap prints failures only */

/* failures go to stderr: every rank's are seen, and stdout (rank 0's
 * report, compared with Open MPI's) stays the same on every MPI */
#define TU_CHECK(cond, ...)                                                                  \
    do {                                                                                     \
        tu_checks++;                                                                         \
        if (!(cond)) {                                                                       \
            tu_failures++;                                                                   \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                             \
            fprintf(stderr, __VA_ARGS__);                                                    \
            fprintf(stderr, "\n");                                                           \
        }                                                                                    \
    } while (0)

/* MPI_Init; the programs that check the local engine run on any number of
 * ranks, each checking the same, and only rank 0 reports on stdout */
static inline void tu_init(int *argc, char ***argv)
{
    int rank;

    MPI_Init(argc, argv);
    MPI_Comm_rank(MPI_COMM_WORLD, &rank);
    if (rank != 0 && freopen("/dev/null", "w", stdout) == NULL)
        perror("freopen");
}

/* the class of rc by name, for output that any MPI prints alike */
static inline const char *tu_class(int rc)
{
    static char other[32];
    int         c = rc;

    if (rc != MPI_SUCCESS)
        MPI_Error_class(rc, &c);
    switch (c) {
    case MPI_SUCCESS: return "MPI_SUCCESS";
    case MPI_ERR_TYPE: return "MPI_ERR_TYPE";
    case MPI_ERR_COUNT: return "MPI_ERR_COUNT";
    case MPI_ERR_ARG: return "MPI_ERR_ARG";
    case MPI_ERR_TRUNCATE: return "MPI_ERR_TRUNCATE";
    case MPI_ERR_BUFFER: return "MPI_ERR_BUFFER";
    case MPI_ERR_COMM: return "MPI_ERR_COMM";
    case MPI_ERR_OTHER: return "MPI_ERR_OTHER";
    }
    snprintf(other, sizeof other, "class %d", c);
    return other;
}

/* prints a summary line; the exit status of main */
static inline int tu_finish(const char *test)
{
    printf("%s: %d checks, %s\n", test, tu_checks, tu_failures ? "FAILED" : "all passed");
    fflush(stdout);
    MPI_Finalize();
    return tu_failures != 0;
}

/* size, bounds and true bounds of t against the expected values */
static inline void tu_bounds(const char *name, MPI_Datatype t, int size, MPI_Aint lb, MPI_Aint extent,
                      MPI_Aint true_lb, MPI_Aint true_extent)
{
    int      s = -1;
    MPI_Aint l = -1, e = -1, tl = -1, te = -1;

    MPI_Type_size(t, &s);
    MPI_Type_get_extent(t, &l, &e);
    MPI_Type_get_true_extent(t, &tl, &te);
    printf("%-40s size %3d lb %4ld extent %4ld true_lb %4ld true_extent %4ld\n", name, s,
           (long)l, (long)e, (long)tl, (long)te);
    TU_CHECK(s == size && l == lb && e == extent && tl == true_lb && te == true_extent,
             "%s: expected size %d lb %ld extent %ld true_lb %ld true_extent %ld", name, size,
             (long)lb, (long)extent, (long)true_lb, (long)true_extent);
}

/* ------------------------------------------------------------ typemaps */
/* one basic entry of a typemap: len bytes at off from the element's start */
struct tu_ent {
    long off;
    int  len;
};

#define TU_MEM    (1 << 16)
#define TU_ORIGIN (1 << 15)   /* buffers start mid-array: displacements may be negative */
static unsigned char tu_src[TU_MEM], tu_dst[TU_MEM], tu_cover[TU_MEM];
static unsigned char tu_packed[TU_MEM], tu_expect[TU_MEM];

static inline void tu_fill(void)
{
    for (int i = 0; i < TU_MEM; i++)
        tu_src[i] = (unsigned char)(i % 251 + 1);   /* never 0 */
}

/* Packs count elements of t at tu_src + TU_ORIGIN and compares with the
 * entries (one element, in typemap order) repeated at extent steps; then,
 * unless entries overlap (erroneous in a receive, MPI-3.1 3.2.2), unpacks
 * into a cleared buffer, where exactly the entries' bytes must arrive. */
static inline void tu_typemap(const char *name, MPI_Datatype t, int count, const struct tu_ent *ent,
                       int nent)
{
    MPI_Aint lb, extent;
    int      n = 0, pos = 0, upos = 0, size, rc, bad = 0, overlap = 0;

    tu_fill();
    MPI_Type_get_extent(t, &lb, &extent);
    memset(tu_cover, 0, sizeof tu_cover);
    for (int e = 0; e < count; e++)
        for (int i = 0; i < nent; i++) {
            long at = TU_ORIGIN + e * (long)extent + ent[i].off;

            memcpy(tu_expect + n, tu_src + at, (size_t)ent[i].len);
            for (int k = 0; k < ent[i].len; k++)
                overlap |= tu_cover[at + k]++;
            n += ent[i].len;
        }
    MPI_Pack_size(count, t, MPI_COMM_WORLD, &size);
    memset(tu_packed, 0, sizeof tu_packed);
    rc = MPI_Pack(tu_src + TU_ORIGIN, count, t, tu_packed, TU_MEM, &pos, MPI_COMM_WORLD);
    TU_CHECK(rc == MPI_SUCCESS && pos == n && size >= n, "%s x%d: pack rc %s position %d"
             " Pack_size %d, expected %d bytes", name, count, tu_class(rc), pos, size, n);
    TU_CHECK(memcmp(tu_packed, tu_expect, (size_t)n) == 0, "%s x%d: packed bytes differ from"
             " the typemap", name, count);
    if (overlap) {
        if (!tu_quiet)
            printf("%-40s x%-3d %5d bytes packed as the typemap says\n", name, count, n);
        return;
    }
    memset(tu_dst, 0, sizeof tu_dst);
    rc = MPI_Unpack(tu_packed, n, &upos, tu_dst + TU_ORIGIN, count, t, MPI_COMM_WORLD);
    TU_CHECK(rc == MPI_SUCCESS && upos == n, "%s x%d: unpack rc %s position %d", name, count,
             tu_class(rc), upos);
    for (int i = 0; i < TU_MEM; i++)
        bad += tu_dst[i] != (tu_cover[i] ? tu_src[i] : 0);
    TU_CHECK(bad == 0, "%s x%d: unpack wrote %d bytes wrong", name, count, bad);
    if (!tu_quiet)
        printf("%-40s x%-3d %5d bytes packed and unpacked as the typemap says\n", name, count,
               n);
}

#endif /* TYPE_UTIL_H */

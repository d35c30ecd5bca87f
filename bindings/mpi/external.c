/*
 * external.c -- the "external32" data representation (MPI-3.1 13.5.2):
 * MPI_Pack_external, MPI_Unpack_external, MPI_Pack_external_size.
 *
 * external32 is big-endian with fixed sizes (Table 13.2): MPI_LONG and
 * MPI_UNSIGNED_LONG are 4 bytes there (8 here: a value that does not fit
 * is MPI_ERR_CONVERSION), MPI_LONG_DOUBLE is an IEEE binary128 of 16 bytes
 * (converted from the x87 80-bit format here), the pair types are their
 * two parts. A type is walked element by element through its constructor
 * tree (struct kmpi_dt), in typemap order; every basic element is
 * converted on its own, so the packed form never depends on the host.
 */
#include <float.h>
#include <limits.h>
#include <string.h>

#include "datatype.h"

/* bytes of basic type h in external32, 0 when h is a pair type */
static size_t ext_size(MPI_Datatype h)
{
    switch (h) {
    case MPI_CHAR: case MPI_SIGNED_CHAR: case MPI_UNSIGNED_CHAR: case MPI_BYTE:
    case MPI_C_BOOL: case MPI_INT8_T: case MPI_UINT8_T: case MPI_PACKED:
        return 1;
    case MPI_SHORT: case MPI_UNSIGNED_SHORT: case MPI_INT16_T: case MPI_UINT16_T:
        return 2;
    case MPI_INT: case MPI_UNSIGNED: case MPI_LONG: case MPI_UNSIGNED_LONG: case MPI_FLOAT:
    case MPI_WCHAR: case MPI_INT32_T: case MPI_UINT32_T:
        return 4;
    case MPI_LONG_LONG_INT: case MPI_UNSIGNED_LONG_LONG: case MPI_DOUBLE: case MPI_INT64_T:
    case MPI_UINT64_T: case MPI_AINT: case MPI_OFFSET: case MPI_COUNT: case MPI_C_FLOAT_COMPLEX:
        return 8;
    case MPI_LONG_DOUBLE: case MPI_C_DOUBLE_COMPLEX:
        return 16;
    case MPI_C_LONG_DOUBLE_COMPLEX:
        return 32;
    default:
        return 0;
    }
}

/* a pair type's value type and the offset of its int; 0 when h is none */
static MPI_Datatype pair_parts(MPI_Datatype h, size_t *ioff)
{
    switch (h) {
    case MPI_FLOAT_INT:       *ioff = offsetof(kmpi_float_int_t, i); return MPI_FLOAT;
    case MPI_DOUBLE_INT:      *ioff = offsetof(kmpi_double_int_t, i); return MPI_DOUBLE;
    case MPI_LONG_INT:        *ioff = offsetof(kmpi_long_int_t, i); return MPI_LONG;
    case MPI_2INT:            *ioff = offsetof(kmpi_2int_t, i); return MPI_INT;
    case MPI_SHORT_INT:       *ioff = offsetof(kmpi_short_int_t, i); return MPI_SHORT;
    case MPI_LONG_DOUBLE_INT: *ioff = offsetof(kmpi_long_double_int_t, i); return MPI_LONG_DOUBLE;
    default:                  return MPI_DATATYPE_NULL;
    }
}

/* big-endian n bytes of the n-byte native value at p (and back) */
static void put_be(unsigned char *out, const unsigned char *p, size_t n)
{
    for (size_t i = 0; i < n; i++)
        out[i] = p[n - 1 - i];   /* the host is little-endian (x86-64, arm64) */
}

_Static_assert(__BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__, "external.c assumes a little-endian "
               "host");

/* one long double <-> IEEE binary128, big-endian */
static int ld_out(unsigned char *out, const void *p)
{
#if LDBL_MANT_DIG == 64
    unsigned char b[16] = { 0 }, q[16] = { 0 };
    uint64_t      mant;
    memcpy(b, p, 10);                  /* x87: 64-bit mantissa (explicit integer bit), */
    memcpy(&mant, b, 8);               /* 15-bit exponent and the sign, the same bias */
    q[15] = b[9];
    q[14] = b[8];
    /* the 63 fraction bits, then zeros: bits 111..49 of the binary128 fraction */
    uint64_t frac = mant << 1;         /* drop the integer bit */
    for (int i = 0; i < 8; i++)
        q[6 + i] = (unsigned char)(frac >> (8 * i));
    put_be(out, q, 16);
    return MPI_SUCCESS;
#elif LDBL_MANT_DIG == 113
    put_be(out, p, 16);
    return MPI_SUCCESS;
#else
    (void)out, (void)p;
    return MPI_ERR_CONVERSION;
#endif
}

static int ld_in(void *p, const unsigned char *in)
{
#if LDBL_MANT_DIG == 64
    unsigned char q[16], b[16] = { 0 };
    uint64_t      frac = 0, mant;
    put_be(q, in, 16);
    for (int i = 0; i < 8; i++)
        frac |= (uint64_t)q[6 + i] << (8 * i);
    int expo = ((q[15] & 0x7f) << 8) | q[14];
    mant = frac >> 1;
    if (expo != 0)   /* the explicit integer bit: normal numbers, infinities, NaNs */
        mant |= (uint64_t)1 << 63;
    memcpy(b, &mant, 8);
    b[8] = q[14];
    b[9] = q[15];
    memcpy(p, b, sizeof(long double) < 16 ? sizeof(long double) : 16);
    return MPI_SUCCESS;
#elif LDBL_MANT_DIG == 113
    put_be(p, in, 16);
    return MPI_SUCCESS;
#else
    (void)p, (void)in;
    return MPI_ERR_CONVERSION;
#endif
}

/* One basic element of type h at native p, to or from external32 at x. */
static int convert(MPI_Datatype h, void *p, unsigned char *x, int pack)
{
    size_t n = ext_size(h);

    switch (h) {
    case MPI_LONG: case MPI_UNSIGNED_LONG: {
        unsigned char b[4];
        if (pack) {
            long v = *(const long *)p;
            if (h == MPI_LONG ? (v < INT32_MIN || v > INT32_MAX)
                              : ((unsigned long)v > UINT32_MAX))
                return MPI_ERR_CONVERSION;
            uint32_t w = (uint32_t)v;
            memcpy(b, &w, 4);
            put_be(x, b, 4);
        } else {
            uint32_t w;
            put_be(b, x, 4);
            memcpy(&w, b, 4);
            if (h == MPI_LONG)
                *(long *)p = (long)(int32_t)w;
            else
                *(unsigned long *)p = w;
        }
        return MPI_SUCCESS;
    }
    case MPI_LONG_DOUBLE:
        return pack ? ld_out(x, p) : ld_in(p, x);
    case MPI_C_LONG_DOUBLE_COMPLEX: {
        int rc = pack ? ld_out(x, p) : ld_in(p, x);
        if (rc == MPI_SUCCESS)
            rc = pack ? ld_out(x + 16, (char *)p + sizeof(long double))
                      : ld_in((char *)p + sizeof(long double), x + 16);
        return rc;
    }
    case MPI_C_FLOAT_COMPLEX: case MPI_C_DOUBLE_COMPLEX:   /* two parts, each big-endian */
        if (pack) {
            put_be(x, p, n / 2);
            put_be(x + n / 2, (unsigned char *)p + n / 2, n / 2);
        } else {
            put_be(p, x, n / 2);
            put_be((unsigned char *)p + n / 2, x + n / 2, n / 2);
        }
        return MPI_SUCCESS;
    default:
        if (pack)
            put_be(x, p, n);
        else
            put_be(p, x, n);
        return MPI_SUCCESS;
    }
}

struct walk {
    unsigned char *x;      /* the external buffer (NULL: only count bytes) */
    size_t         bytes;  /* external bytes so far */
    int            pack, rc;
};

/* every basic element of one element of t at native p, in typemap order */
static void walk(const struct kmpi_dt *t, void *p, struct walk *w)
{
    switch (t->kind) {
    case KMPI_DT_BASIC: {
        MPI_Datatype h = kmpi_dt_basic_handle(t), v;
        size_t       ioff;
        if ((v = pair_parts(h, &ioff)) != MPI_DATATYPE_NULL) {
            walk(kmpi_dt(kmpi_type(v)), p, w);
            walk(kmpi_dt(kmpi_type(MPI_INT)), kmpi_at(p, (MPI_Aint)ioff), w);
            return;
        }
        if (w->x != NULL && w->rc == MPI_SUCCESS)
            w->rc = convert(h, p, w->x + w->bytes, w->pack);
        w->bytes += ext_size(h);
        return;
    }
    case KMPI_DT_VECTOR:
        for (size_t i = 0; i < t->count; i++)
            for (size_t j = 0; j < t->blocklen; j++)
                walk(t->old, kmpi_at(p, (MPI_Aint)i * t->stride + (MPI_Aint)j * t->old->pub.extent),
                     w);
        return;
    case KMPI_DT_BLOCKS:
        for (size_t i = 0; i < t->count; i++) {
            const struct kmpi_dt *o = t->types != NULL ? t->types[i] : t->old;
            for (size_t j = 0; j < t->blocklens[i]; j++)
                walk(o, kmpi_at(p, t->disps[i] + (MPI_Aint)j * o->pub.extent), w);
        }
        return;
    case KMPI_DT_RESIZED:
    case KMPI_DT_DUP:
        walk(t->old, p, w);
        return;
    }
}

/* the checks all three make; the datatype, or NULL with *rc */
static struct kmpi_dt *ext_check(const char *call, const char *datarep, int count,
                                 MPI_Datatype datatype, int *rc)
{
    struct kmpi_dt *t;

    if ((*rc = kmpi_live(call)) != MPI_SUCCESS)
        return NULL;
    if (datarep == NULL || strcmp(datarep, "external32") != 0) {
        *rc = kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "data representation '%s': only "
                         "\"external32\" is known", datarep ? datarep : "(null)");
        return NULL;
    }
    if (count < 0) {
        *rc = kmpi_error(MPI_COMM_WORLD, MPI_ERR_COUNT, call, "count %d is negative", count);
        return NULL;
    }
    if ((t = kmpi_dt_get(MPI_COMM_WORLD, call, "datatype", datatype, rc)) == NULL)
        return NULL;
    if (!t->pub.committed) {
        *rc = kmpi_error(MPI_COMM_WORLD, MPI_ERR_TYPE, call, "the datatype is not committed");
        return NULL;
    }
    return t;
}

static size_t ext_bytes(const struct kmpi_dt *t)
{
    struct walk w = { NULL, 0, 1, MPI_SUCCESS };

    walk(t, NULL, &w);
    return w.bytes;
}

#pragma weak MPI_Pack_external_size = PMPI_Pack_external_size
int PMPI_Pack_external_size(const char datarep[], int incount, MPI_Datatype datatype,
                            MPI_Aint *size)
{
    static const char call[] = "MPI_Pack_external_size";
    int               rc;
    struct kmpi_dt   *t = ext_check(call, datarep, incount, datatype, &rc);

    if (t == NULL)
        return rc;
    if (size == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "size is NULL");
    *size = (MPI_Aint)(ext_bytes(t) * (size_t)incount);
    return MPI_SUCCESS;
}

/* count elements between the native buffer and the external one */
static int ext_move(const char *call, const struct kmpi_dt *t, char *native, int count,
                    unsigned char *x, MPI_Aint room, MPI_Aint *position, int pack)
{
    size_t      one = ext_bytes(t);
    struct walk w = { NULL, 0, pack, MPI_SUCCESS };

    if (position == NULL || *position < 0)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "position is NULL or negative");
    if ((size_t)count * one > (size_t)(room - *position) || *position > room)
        return kmpi_error(MPI_COMM_WORLD, pack ? MPI_ERR_BUFFER : MPI_ERR_TRUNCATE, call,
                          "%d elements take %zu bytes in external32; %ld left in the buffer",
                          count, (size_t)count * one, (long)(room - *position));
    if (count > 0 && one > 0 && x == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_BUFFER, call, "the buffer is NULL");
    w.x = x + *position;
    for (int k = 0; k < count && w.rc == MPI_SUCCESS; k++)
        walk(t, kmpi_at(native, (MPI_Aint)k * t->pub.extent), &w);
    if (w.rc != MPI_SUCCESS)
        return kmpi_error(MPI_COMM_WORLD, w.rc, call, "a value does not fit external32 (a "
                          "long beyond 32 bits, or a long double format not known here)");
    *position += (MPI_Aint)w.bytes;
    return MPI_SUCCESS;
}

#pragma weak MPI_Pack_external = PMPI_Pack_external
int PMPI_Pack_external(const char datarep[], const void *inbuf, int incount,
                       MPI_Datatype datatype, void *outbuf, MPI_Aint outsize, MPI_Aint *position)
{
    static const char call[] = "MPI_Pack_external";
    int               rc;
    struct kmpi_dt   *t = ext_check(call, datarep, incount, datatype, &rc);

    if (t == NULL)
        return rc;
    return ext_move(call, t, (char *)inbuf, incount, outbuf, outsize, position, 1);
}

#pragma weak MPI_Unpack_external = PMPI_Unpack_external
int PMPI_Unpack_external(const char datarep[], const void *inbuf, MPI_Aint insize,
                         MPI_Aint *position, void *outbuf, int outcount, MPI_Datatype datatype)
{
    static const char call[] = "MPI_Unpack_external";
    int               rc;
    struct kmpi_dt   *t = ext_check(call, datarep, outcount, datatype, &rc);

    if (t == NULL)
        return rc;
    return ext_move(call, t, outbuf, outcount, (unsigned char *)inbuf, insize, position, 0);
}

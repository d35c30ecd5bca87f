/*
 * errh.c -- error codes, their strings, and error handlers.
 *
 * Error codes are the error classes (MPI_Error_class is the identity on
 * them). Every failing MPI_ call goes through kmpi_error, which applies the
 * communicator's handler: MPI_ERRORS_ARE_FATAL (the default) prints one
 * line "kumi-mpi[rank]: MPI_Call: MPI_ERR_X: what; the job ends" and ends
 * the whole job with status 1; MPI_ERRORS_RETURN returns the code (and
 * prints the line only with KUMI_MPI_VERBOSE=1); a handler made by
 * MPI_Comm_create_errhandler is called with the communicator and the code.
 */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mpi_int.h"

/* X(class, what it means) for every class mpi.h defines */
#define KMPI_ERROR_CLASSES(X)                                                        \
    X(MPI_SUCCESS,         "no error")                                               \
    X(MPI_ERR_BUFFER,      "invalid buffer (or the MPI_Bsend buffer is too small)")   \
    X(MPI_ERR_COUNT,       "invalid count")                                          \
    X(MPI_ERR_TYPE,        "invalid datatype")                                       \
    X(MPI_ERR_TAG,         "invalid tag")                                            \
    X(MPI_ERR_COMM,        "invalid communicator")                                   \
    X(MPI_ERR_RANK,        "invalid rank")                                           \
    X(MPI_ERR_REQUEST,     "invalid request")                                        \
    X(MPI_ERR_ROOT,        "invalid root")                                           \
    X(MPI_ERR_GROUP,       "invalid group")                                          \
    X(MPI_ERR_OP,          "invalid operation")                                      \
    X(MPI_ERR_TOPOLOGY,    "invalid topology")                                       \
    X(MPI_ERR_DIMS,        "invalid dimensions")                                     \
    X(MPI_ERR_ARG,         "invalid argument")                                       \
    X(MPI_ERR_UNKNOWN,     "unknown error")                                          \
    X(MPI_ERR_TRUNCATE,    "message truncated: longer than the receive buffer")      \
    X(MPI_ERR_OTHER,       "other error")                                            \
    X(MPI_ERR_INTERN,      "internal error")                                         \
    X(MPI_ERR_IN_STATUS,   "error code in status")                                   \
    X(MPI_ERR_PENDING,     "pending request")                                        \
    X(MPI_ERR_NO_MEM,      "out of memory")                                          \
    X(MPI_ERR_PROC_FAILED, "a process failed")                                      \
    X(MPI_ERR_UNSUPPORTED_OPERATION, "unsupported operation")                        \
    X(MPI_ERR_WIN,         "invalid window")                                         \
    X(MPI_ERR_INFO,        "invalid info object")                                    \
    X(MPI_ERR_INFO_KEY,    "info key too long or empty")                             \
    X(MPI_ERR_INFO_VALUE,  "info value too long or empty")                           \
    X(MPI_ERR_INFO_NOKEY,  "no such key in the info object")                         \
    X(MPI_ERR_KEYVAL,      "invalid attribute key")                                  \
    X(MPI_ERR_CONVERSION,  "a value does not fit the data representation")           \
    X(MPI_ERR_BASE,        "invalid base address")                                   \
    X(MPI_ERR_DISP,        "invalid displacement unit or target displacement")       \
    X(MPI_ERR_SIZE,        "invalid window size")                                    \
    X(MPI_ERR_LOCKTYPE,    "invalid lock type")                                      \
    X(MPI_ERR_ASSERT,      "invalid assert argument")                                \
    X(MPI_ERR_RMA_SYNC,    "one-sided call outside its synchronization (epoch)")     \
    X(MPI_ERR_RMA_RANGE,   "target memory outside the window")                       \
    X(MPI_ERR_RMA_CONFLICT, "conflicting accesses to a window")                      \
    X(MPI_ERR_RMA_ATTACH,  "memory cannot be attached to the dynamic window")        \
    X(MPI_ERR_RMA_SHARED,  "memory cannot be shared among the window's processes")   \
    X(MPI_ERR_RMA_FLAVOR,  "wrong window flavor for the call")                      \
    X(MPI_ERR_SPAWN,       "could not spawn processes")                              \
    X(MPI_ERR_PORT,        "invalid port name")                                      \
    X(MPI_ERR_SERVICE,     "invalid service name")                                   \
    X(MPI_ERR_NAME,        "invalid service name (MPI_Lookup_name)")                 \
    X(MPI_ERR_FILE,        "invalid file handle")                                    \
    X(MPI_ERR_NOT_SAME,    "collective arguments not the same on all processes")     \
    X(MPI_ERR_AMODE,       "invalid file access mode")                               \
    X(MPI_ERR_UNSUPPORTED_DATAREP, "unsupported data representation")                \
    X(MPI_ERR_NO_SUCH_FILE, "file does not exist")                                   \
    X(MPI_ERR_FILE_EXISTS, "file exists")                                            \
    X(MPI_ERR_BAD_FILE,    "invalid file name")                                      \
    X(MPI_ERR_ACCESS,      "permission denied")                                      \
    X(MPI_ERR_NO_SPACE,    "not enough space")                                       \
    X(MPI_ERR_QUOTA,       "quota exceeded")                                         \
    X(MPI_ERR_READ_ONLY,   "read-only file or file system")                          \
    X(MPI_ERR_FILE_IN_USE, "file in use by another process")                         \
    X(MPI_ERR_DUP_DATAREP, "data representation already defined")                   \
    X(MPI_ERR_IO,          "I/O error")

struct kmpi_error_row {
    int         code;
    const char *name, *what;
};
static const struct kmpi_error_row kmpi_error_rows[] = {
#define KMPI_ERROR_ROW(code, what) { code, #code, what },
    KMPI_ERROR_CLASSES(KMPI_ERROR_ROW)
#undef KMPI_ERROR_ROW
};
#define KMPI_NERRORS ((int)(sizeof(kmpi_error_rows) / sizeof(kmpi_error_rows[0])))

static const struct kmpi_error_row *kmpi_error_row(int code)
{
    for (int i = 0; i < KMPI_NERRORS; i++)
        if (kmpi_error_rows[i].code == code)
            return &kmpi_error_rows[i];
    return NULL;
}

/* ------------------------------------------------------------ the program's own
 * MPI_Add_error_class and MPI_Add_error_code hand out MPI_ERR_LASTCODE + 1,
 * + 2, ... in order (classes and codes share the numbers, as MPI-3.1 8.5
 * allows); user[v - MPI_ERR_LASTCODE - 1] is value v: its class (itself
 * for a class) and its string (MPI_Add_error_string; "" until set).
 * kmpi_lastused is the value of the MPI_LASTUSEDCODE attribute. Only the
 * thread that initialized calls MPI (MPI_THREAD_FUNNELED): no lock. */
struct kmpi_user_error {
    int   cls;
    char *string;
};
static struct kmpi_user_error *user_errors;
static int                     user_nerrors, user_cap;
int                            kmpi_lastused = MPI_ERR_LASTCODE;

static struct kmpi_user_error *user_error(int code)
{
    return code > MPI_ERR_LASTCODE && code - MPI_ERR_LASTCODE <= user_nerrors
               ? &user_errors[code - MPI_ERR_LASTCODE - 1]
               : NULL;
}

/* the class of a valid code (predefined or the program's), -1 otherwise */
static int error_class_of(int code)
{
    const struct kmpi_user_error *u = user_error(code);

    if (u != NULL)
        return u->cls;
    return kmpi_error_row(code) != NULL ? code : -1;
}

/* ------------------------------------------------------------ handlers
 * Handle 1 and 2 are the predefined ones; 3.. are made by
 * MPI_Comm_create_errhandler, kept while a communicator uses them or the
 * program holds the handle (refs). */
struct kmpi_errh {
    MPI_Comm_errhandler_function *fn;
    int                           refs;   /* 0: slot free */
};
static struct kmpi_errh *kmpi_errhs;
static int               kmpi_nerrhs;
#define KMPI_ERRH_FIRST_USER 3

MPI_Errhandler kmpi_world_errh = MPI_ERRORS_ARE_FATAL;

int kmpi_errh_valid(MPI_Errhandler e)
{
    return e == MPI_ERRORS_ARE_FATAL || e == MPI_ERRORS_RETURN
           || (e >= KMPI_ERRH_FIRST_USER && e - KMPI_ERRH_FIRST_USER < kmpi_nerrhs
               && kmpi_errhs[e - KMPI_ERRH_FIRST_USER].refs > 0);
}

void kmpi_errh_ref(MPI_Errhandler e)
{
    if (e >= KMPI_ERRH_FIRST_USER)
        kmpi_errhs[e - KMPI_ERRH_FIRST_USER].refs++;
}

void kmpi_errh_unref(MPI_Errhandler e)
{
    if (e >= KMPI_ERRH_FIRST_USER && kmpi_errhs[e - KMPI_ERRH_FIRST_USER].refs > 0)
        kmpi_errhs[e - KMPI_ERRH_FIRST_USER].refs--;
}

/* ------------------------------------------------------------ reporting */

const char *kmpi_comm_label(MPI_Comm comm, char *buf, size_t n)
{
    struct kmpi_comm *c = kmpi_state == 1 ? kmpi_comm(comm) : NULL;

    if (comm == MPI_COMM_WORLD)
        return "MPI_COMM_WORLD";
    if (comm == MPI_COMM_SELF)
        return "MPI_COMM_SELF";
    if (comm == MPI_COMM_NULL)
        return "MPI_COMM_NULL";
    if (c != NULL && c->name[0] != '\0')
        snprintf(buf, n, "communicator %d '%s'", comm, c->name);
    else
        snprintf(buf, n, "communicator %d", comm);
    return buf;
}

static int kmpi_verbose(void)
{
    const char *v = getenv("KUMI_MPI_VERBOSE");
    return v != NULL && *v != '\0' && strcmp(v, "0") != 0;
}

static void kmpi_print(int code, const char *call, const char *what, const char *tail)
{
    const struct kmpi_error_row  *row = kmpi_error_row(code);
    const struct kmpi_user_error *u = user_error(code);
    int rank = kmpi_state == 1 ? kumi_rank() : -1;
    char who[32] = "kumi-mpi", name[MPI_MAX_ERROR_STRING + 48];

    if (rank >= 0)
        snprintf(who, sizeof who, "kumi-mpi[%d]", rank);
    if (u != NULL)   /* with its MPI_Add_error_string, if any */
        snprintf(name, sizeof name, "error %s %d%s%s%s", u->cls == code ? "class" : "code", code,
                 u->string && *u->string ? " (\"" : "", u->string ? u->string : "",
                 u->string && *u->string ? "\")" : "");
    fflush(stdout);
    fprintf(stderr, "%s: %s: %s: %s%s\n", who, call,
            u != NULL ? name : row ? row->name : "MPI_ERR_UNKNOWN", what, tail);
    fflush(stderr);
}

_Noreturn static void kmpi_fatal(int code, const char *call, const char *what)
{
    kmpi_print(code, call, what, "; the job ends (MPI_ERRORS_ARE_FATAL)");
    kumi_global_exit(1);
}

int kmpi_errh_raise(MPI_Errhandler e, int handle, int code, const char *call, const char *what)
{
    if (e == MPI_ERRORS_ARE_FATAL || !kmpi_errh_valid(e))
        kmpi_fatal(code, call, what);
    if (kmpi_verbose())
        kmpi_print(code, call, what, "");
    if (e >= KMPI_ERRH_FIRST_USER) {
        int h = handle, k = code;
        kmpi_errhs[e - KMPI_ERRH_FIRST_USER].fn(&h, &k);
    }
    return code;
}

int kmpi_error(MPI_Comm comm, int code, const char *call, const char *fmt, ...)
{
    struct kmpi_comm *c = kmpi_state == 1 ? kmpi_comm(comm) : NULL;
    MPI_Errhandler    e = c != NULL ? c->errh : kmpi_world_errh;
    char              what[512];
    va_list           ap;

    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (e == MPI_ERRORS_ARE_FATAL || !kmpi_errh_valid(e))
        kmpi_fatal(code, call, what);
    if (kmpi_verbose())
        kmpi_print(code, call, what, "");
    if (e >= KMPI_ERRH_FIRST_USER) {
        MPI_Comm h = c != NULL ? comm : MPI_COMM_WORLD;
        int      k = code;
        kmpi_errhs[e - KMPI_ERRH_FIRST_USER].fn(&h, &k);
    }
    return code;
}

int kmpi_from_kumi(int kumi_rc)
{
    switch (kumi_rc) {
    case KUMI_OK:           return MPI_SUCCESS;
    case KUMI_ERR_INVALID:  return MPI_ERR_ARG;
    case KUMI_ERR_NOMEM:    return MPI_ERR_NO_MEM;
    case KUMI_ERR_PEER:     return MPI_ERR_PROC_FAILED;
    case KUMI_ERR_TRUNCATE: return MPI_ERR_TRUNCATE;
    default:                return MPI_ERR_OTHER;
    }
}

int kmpi_error_kumi(MPI_Comm comm, int kumi_rc, const char *call, const char *what)
{
    int code = kmpi_from_kumi(kumi_rc);

    if (kumi_rc == KUMI_ERR_PEER) {
        /* kumi named the dead PE already; the job is ending either way */
        struct kmpi_comm *c = kmpi_state == 1 ? kmpi_comm(comm) : NULL;
        MPI_Errhandler    e = c != NULL ? c->errh : kmpi_world_errh;
        if (e == MPI_ERRORS_ARE_FATAL || !kmpi_errh_valid(e)) {
            fflush(stdout);
            kumi_global_exit(1);
        }
        return kmpi_error(comm, code, call, "%s: %s", what, kumi_strerror(kumi_rc));
    }
    return kmpi_error(comm, code, call, "%s: %s", what, kumi_strerror(kumi_rc));
}

/* ------------------------------------------------------------ MPI calls */

#pragma weak MPI_Error_string = PMPI_Error_string
int PMPI_Error_string(int errorcode, char *string, int *resultlen)
{
    static const char call[] = "MPI_Error_string";
    const struct kmpi_error_row *row = kmpi_error_row(errorcode);

    if (string == NULL || resultlen == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "string or resultlen is NULL");
    const struct kmpi_user_error *u = user_error(errorcode);
    if (row == NULL && u == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "%d is no error code", errorcode);
    int n = u != NULL ? snprintf(string, MPI_MAX_ERROR_STRING, "%s", u->string ? u->string : "")
                      : snprintf(string, MPI_MAX_ERROR_STRING, "%s: %s", row->name, row->what);
    *resultlen = n < MPI_MAX_ERROR_STRING ? n : MPI_MAX_ERROR_STRING - 1;
    return MPI_SUCCESS;
}

#pragma weak MPI_Error_class = PMPI_Error_class
int PMPI_Error_class(int errorcode, int *errorclass)
{
    static const char call[] = "MPI_Error_class";

    if (errorclass == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "errorclass is NULL");
    int cls = error_class_of(errorcode);
    if (cls < 0)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "%d is no error code", errorcode);
    *errorclass = cls;
    return MPI_SUCCESS;
}

/* a new value of class cls (-1: a new class, its own) into *out */
static int user_add(const char *call, int cls, int *out)
{
    int rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (out == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "the output argument is NULL");
    if (cls >= 0 && (error_class_of(cls) != cls))
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "%d is no error class", cls);
    if (user_nerrors == user_cap) {
        int                     n = user_cap ? 2 * user_cap : 16;
        struct kmpi_user_error *t = n < INT_MAX / 4 ? realloc(user_errors, (size_t)n * sizeof(*t))
                                                    : NULL;
        if (t == NULL)
            return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "no memory for an error code");
        user_errors = t;
        user_cap    = n;
    }
    int v = MPI_ERR_LASTCODE + 1 + user_nerrors;
    user_errors[user_nerrors].cls    = cls >= 0 ? cls : v;
    user_errors[user_nerrors].string = NULL;
    user_nerrors++;
    kmpi_lastused = v;
    *out = v;
    return MPI_SUCCESS;
}

#pragma weak MPI_Add_error_class = PMPI_Add_error_class
int PMPI_Add_error_class(int *errorclass)
{
    return user_add("MPI_Add_error_class", -1, errorclass);
}

#pragma weak MPI_Add_error_code = PMPI_Add_error_code
int PMPI_Add_error_code(int errorclass, int *errorcode)
{
    return user_add("MPI_Add_error_code", errorclass < 0 ? INT_MAX : errorclass, errorcode);
}

#pragma weak MPI_Add_error_string = PMPI_Add_error_string
int PMPI_Add_error_string(int errorcode, const char *string)
{
    static const char       call[] = "MPI_Add_error_string";
    int                     rc = kmpi_live(call);
    struct kmpi_user_error *u = user_error(errorcode);
    char                   *copy;

    if (rc != MPI_SUCCESS)
        return rc;
    if (string == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "string is NULL");
    if (u == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "%d is %s", errorcode,
                          kmpi_error_row(errorcode) != NULL
                              ? "a predefined error code: its string cannot change"
                              : "no error code of the program's (MPI_Add_error_code)");
    if (strlen(string) >= MPI_MAX_ERROR_STRING)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "the string has %zu characters, "
                          "more than MPI_MAX_ERROR_STRING - 1 (%d)", strlen(string),
                          MPI_MAX_ERROR_STRING - 1);
    if ((copy = strdup(string)) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "no memory for the string");
    free(u->string);   /* a later string replaces the earlier */
    u->string = copy;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_set_errhandler = PMPI_Comm_set_errhandler
int PMPI_Comm_set_errhandler(MPI_Comm comm, MPI_Errhandler errhandler)
{
    static const char call[] = "MPI_Comm_set_errhandler";
    int rc = kmpi_live(call);
    struct kmpi_comm *c;

    if (rc != MPI_SUCCESS)
        return rc;
    if ((c = kmpi_comm(comm)) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator", comm);
    if (!kmpi_errh_valid(errhandler))
        return kmpi_error(comm, MPI_ERR_ARG, call, "%d is no error handler", errhandler);
    kmpi_errh_ref(errhandler);
    kmpi_errh_unref(c->errh);
    c->errh = errhandler;
    if (comm == MPI_COMM_WORLD)
        kmpi_world_errh = errhandler;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_get_errhandler = PMPI_Comm_get_errhandler
int PMPI_Comm_get_errhandler(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Comm_get_errhandler";
    int rc = kmpi_live(call);
    struct kmpi_comm *c;

    if (rc != MPI_SUCCESS)
        return rc;
    if ((c = kmpi_comm(comm)) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator", comm);
    if (errhandler == NULL)
        return kmpi_error(comm, MPI_ERR_ARG, call, "errhandler is NULL");
    kmpi_errh_ref(c->errh);   /* the program frees it with MPI_Errhandler_free */
    *errhandler = c->errh;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_create_errhandler = PMPI_Comm_create_errhandler
int PMPI_Comm_create_errhandler(MPI_Comm_errhandler_function *function,
                                MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Comm_create_errhandler";
    int rc = kmpi_live(call), i;

    if (rc != MPI_SUCCESS)
        return rc;
    if (function == NULL || errhandler == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "function or errhandler is NULL");
    for (i = 0; i < kmpi_nerrhs && kmpi_errhs[i].refs > 0; i++)
        ;
    if (i == kmpi_nerrhs) {
        int               n = kmpi_nerrhs ? 2 * kmpi_nerrhs : 8;
        struct kmpi_errh *t = realloc(kmpi_errhs, (size_t)n * sizeof(*t));
        if (t == NULL)
            return kmpi_error(MPI_COMM_WORLD, MPI_ERR_NO_MEM, call, "no memory for a handler");
        memset(t + kmpi_nerrhs, 0, (size_t)(n - kmpi_nerrhs) * sizeof(*t));
        kmpi_errhs  = t;
        kmpi_nerrhs = n;
    }
    kmpi_errhs[i].fn   = function;
    kmpi_errhs[i].refs = 1;
    *errhandler = KMPI_ERRH_FIRST_USER + i;
    return MPI_SUCCESS;
}

#pragma weak MPI_Comm_call_errhandler = PMPI_Comm_call_errhandler
int PMPI_Comm_call_errhandler(MPI_Comm comm, int errorcode)
{
    static const char call[] = "MPI_Comm_call_errhandler";
    int rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (kmpi_comm(comm) == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_COMM, call, "%d is no communicator", comm);
    kmpi_error(comm, errorcode, call, "error code %d raised by the program", errorcode);
    return MPI_SUCCESS;
}

#pragma weak MPI_Errhandler_free = PMPI_Errhandler_free
int PMPI_Errhandler_free(MPI_Errhandler *errhandler)
{
    static const char call[] = "MPI_Errhandler_free";
    int rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (errhandler == NULL || !kmpi_errh_valid(*errhandler))
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "%d is no error handler",
                          errhandler ? *errhandler : MPI_ERRHANDLER_NULL);
    kmpi_errh_unref(*errhandler);
    *errhandler = MPI_ERRHANDLER_NULL;
    return MPI_SUCCESS;
}

/* MPI_Finalize: the handlers' table goes */
void kmpi_errh_fini(void)
{
    for (int i = 0; i < user_nerrors; i++)
        free(user_errors[i].string);
    free(user_errors);
    user_errors   = NULL;
    user_nerrors  = user_cap = 0;
    kmpi_lastused = MPI_ERR_LASTCODE;
    free(kmpi_errhs);
    kmpi_errhs  = NULL;
    kmpi_nerrhs = 0;
}

/* ------------------------------------------------------------ MPI-1 names */

#pragma weak MPI_Errhandler_create = PMPI_Errhandler_create
int PMPI_Errhandler_create(MPI_Handler_function *function, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_create_errhandler(function, errhandler);
}

#pragma weak MPI_Errhandler_set = PMPI_Errhandler_set
int PMPI_Errhandler_set(MPI_Comm comm, MPI_Errhandler errhandler)
{
    return PMPI_Comm_set_errhandler(comm, errhandler);
}

#pragma weak MPI_Errhandler_get = PMPI_Errhandler_get
int PMPI_Errhandler_get(MPI_Comm comm, MPI_Errhandler *errhandler)
{
    return PMPI_Comm_get_errhandler(comm, errhandler);
}

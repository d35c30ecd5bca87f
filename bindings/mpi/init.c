/*
 * init.c -- the environment: MPI_Init(_thread), MPI_Finalize, MPI_Abort,
 * the state queries, thread levels, clocks, names and versions.
 *
 * Before kumi_init the binding sets the runtime defaults an MPI program
 * needs (the table below; a variable already set wins): a 2m LLCM gives
 * 128 team slots, so that many communicators can be alive at once (kumi's
 * own default, 256k, gives 16).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "mpi_int.h"

/* KMPI_RT_DEFAULT("NAME", "value", "why"): runtime variables whose default
 * differs for MPI programs */
#define KMPI_RT_DEFAULTS(KMPI_RT_DEFAULT)                                                   \
    KMPI_RT_DEFAULT("KUMI_LLCM_SIZE", "2m",                                                  \
        "LLCM per PE: 128 team slots, one per communicator (MPI_COMM_WORLD, MPI_COMM_SELF " \
        "and 126 made by MPI_Comm_dup/split alive at once)")

int kmpi_state;

static int       kmpi_thread_level;
static pthread_t kmpi_main_thread;

void kmpi_errh_fini(void);

int kmpi_check_live(const char *call)
{
    if (kmpi_state == 1)
        return MPI_SUCCESS;
    return kmpi_error(MPI_COMM_WORLD, MPI_ERR_OTHER, call, "%s",
                      kmpi_state == 0 ? "called before MPI_Init"
                                      : "called after MPI_Finalize");
}

static int kmpi_init(const char *call, int required, int *provided)
{
    int rc;

    if (kmpi_state != 0)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_OTHER, call, "%s", kmpi_state == 1
                          ? "MPI is initialized already" : "called after MPI_Finalize");
#define KMPI_RT_SET(name, value, why) setenv(name, value, 0);
    KMPI_RT_DEFAULTS(KMPI_RT_SET)
#undef KMPI_RT_SET
    if ((rc = kumi_init()) != KUMI_OK)   /* kumi said why */
        return kmpi_error(MPI_COMM_WORLD, kmpi_from_kumi(rc), call, "kumi_init failed: %s",
                          kumi_strerror(rc));
    kmpi_state = 1;
    if ((rc = kmpi_comm_init()) != MPI_SUCCESS) {
        kmpi_state = 0;
        kumi_finalize();
        return rc;
    }
    /* kumi's two-sided calls are made by one thread at a time, the one
     * that initialized: FUNNELED is the most we promise */
    kmpi_thread_level = required < MPI_THREAD_FUNNELED ? required : MPI_THREAD_FUNNELED;
    kmpi_main_thread  = pthread_self();
    if (provided != NULL)
        *provided = kmpi_thread_level;
    return MPI_SUCCESS;
}

#pragma weak MPI_Init = PMPI_Init
int PMPI_Init(int *argc, char ***argv)
{
    (void)argc;
    (void)argv;
    return kmpi_init("MPI_Init", MPI_THREAD_SINGLE, NULL);
}

#pragma weak MPI_Init_thread = PMPI_Init_thread
int PMPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    static const char call[] = "MPI_Init_thread";

    (void)argc;
    (void)argv;
    if (provided == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "provided is NULL");
    if (required < MPI_THREAD_SINGLE || required > MPI_THREAD_MULTIPLE)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "required = %d is no thread "
                          "level (MPI_THREAD_SINGLE 0 .. MPI_THREAD_MULTIPLE 3)", required);
    return kmpi_init(call, required, provided);
}

#pragma weak MPI_Query_thread = PMPI_Query_thread
int PMPI_Query_thread(int *provided)
{
    static const char call[] = "MPI_Query_thread";
    int rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (provided == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "provided is NULL");
    *provided = kmpi_thread_level;
    return MPI_SUCCESS;
}

#pragma weak MPI_Is_thread_main = PMPI_Is_thread_main
int PMPI_Is_thread_main(int *flag)
{
    static const char call[] = "MPI_Is_thread_main";
    int rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (flag == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "flag is NULL");
    *flag = pthread_equal(pthread_self(), kmpi_main_thread) != 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalize = PMPI_Finalize
int PMPI_Finalize(void)
{
    static const char call[] = "MPI_Finalize";
    int rc = kmpi_live(call), krc;

    if (rc != MPI_SUCCESS)
        return rc;
    /* MPI_COMM_SELF's attributes are deleted first, as if it were freed
     * (MPI-3.1 8.7.1: programs hang clean-up on them) */
    if ((rc = kmpi_attr_delete_all(call, MPI_COMM_SELF)) != MPI_SUCCESS)
        return rc;
    /* buffered and freed sends finish first (MPI_Buffer_detach's wait) */
    if ((rc = kmpi_req_fini()) != MPI_SUCCESS)
        return rc;
    /* every PE is done with every communicator before their teams go */
    if ((krc = kumi_barrier(kumi_team_world())) != KUMI_OK)
        return kmpi_error_kumi(MPI_COMM_WORLD, krc, call, "the final barrier failed");
    kmpi_comm_fini();
    kmpi_info_fini();
    kmpi_attr_fini();
    kmpi_state = 2;
    krc = kumi_finalize();
    kmpi_errh_fini();
    if (krc != KUMI_OK)
        return kmpi_error_kumi(MPI_COMM_WORLD, krc, call, "kumi_finalize failed");
    return MPI_SUCCESS;
}

#pragma weak MPI_Initialized = PMPI_Initialized
int PMPI_Initialized(int *flag)
{
    if (flag == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Initialized", "flag is NULL");
    *flag = kmpi_state != 0;
    return MPI_SUCCESS;
}

#pragma weak MPI_Finalized = PMPI_Finalized
int PMPI_Finalized(int *flag)
{
    if (flag == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Finalized", "flag is NULL");
    *flag = kmpi_state == 2;
    return MPI_SUCCESS;
}

#pragma weak MPI_Abort = PMPI_Abort
int PMPI_Abort(MPI_Comm comm, int errorcode)
{
    char label[64];

    fflush(stdout);
    if (kmpi_state == 1)
        fprintf(stderr, "kumi-mpi[%d]: MPI_Abort: %s, error code %d: the job ends\n",
                kumi_rank(), kmpi_comm_label(comm, label, sizeof label), errorcode);
    else
        fprintf(stderr, "kumi-mpi: MPI_Abort: error code %d: the process ends\n", errorcode);
    fflush(stderr);
    /* the job's status is errorcode's low byte, as exit() passes on; one
     * that would read as success (256, ...) becomes 1 */
    kumi_global_exit(errorcode != 0 && (errorcode & 255) == 0 ? 1 : errorcode);
}

/* ------------------------------------------------------------ clocks */

#pragma weak MPI_Wtime = PMPI_Wtime
double PMPI_Wtime(void)
{
    return kumi_wtime();
}

#pragma weak MPI_Wtick = PMPI_Wtick
double PMPI_Wtick(void)
{
    struct timespec ts;

    if (clock_getres(CLOCK_MONOTONIC, &ts) != 0 || (ts.tv_sec == 0 && ts.tv_nsec == 0))
        return 1e-9;
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* ------------------------------------------------------------ names */

#pragma weak MPI_Get_processor_name = PMPI_Get_processor_name
int PMPI_Get_processor_name(char *name, int *resultlen)
{
    static const char call[] = "MPI_Get_processor_name";
    int rc = kmpi_live(call);

    if (rc != MPI_SUCCESS)
        return rc;
    if (name == NULL || resultlen == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, call, "name or resultlen is NULL");
    if (gethostname(name, MPI_MAX_PROCESSOR_NAME) != 0)
        snprintf(name, MPI_MAX_PROCESSOR_NAME, "localhost");
    name[MPI_MAX_PROCESSOR_NAME - 1] = '\0';
    *resultlen = (int)strlen(name);
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_version = PMPI_Get_version
int PMPI_Get_version(int *version, int *subversion)
{
    if (version == NULL || subversion == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_version",
                          "version or subversion is NULL");
    *version    = MPI_VERSION;
    *subversion = MPI_SUBVERSION;
    return MPI_SUCCESS;
}

#pragma weak MPI_Get_library_version = PMPI_Get_library_version
int PMPI_Get_library_version(char *version, int *resultlen)
{
    if (version == NULL || resultlen == NULL)
        return kmpi_error(MPI_COMM_WORLD, MPI_ERR_ARG, "MPI_Get_library_version",
                          "version or resultlen is NULL");
    int n = snprintf(version, MPI_MAX_LIBRARY_VERSION_STRING,
                     "kumi-mpi %d.%d.%d: a subset of MPI %d.%d on kumi", KUMI_VERSION_MAJOR,
                     KUMI_VERSION_MINOR, KUMI_VERSION_PATCH, MPI_VERSION, MPI_SUBVERSION);
    *resultlen = n < MPI_MAX_LIBRARY_VERSION_STRING ? n : MPI_MAX_LIBRARY_VERSION_STRING - 1;
    return MPI_SUCCESS;
}

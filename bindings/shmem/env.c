/*
 * env.c -- the SHMEM_* environment, declared once in the table below, and
 * the runtime defaults a SHMEM program gets.
 *
 * Before kumi_init the binding turns the SHMEM variables into the runtime's
 * (kumi reads KUMI_* from the environment in kumi_init):
 *   heap size: SHMEM_SYMMETRIC_SIZE, else SMA_SYMMETRIC_SIZE, else
 *     KUMI_HEAP_SIZE, else 1g (address space reserved; pages are committed
 *     only when touched). The benchmark suites SHMEM users run allocate
 *     ~200 MiB per PE, more than kumi's own 256m default leaves them.
 *   LLCM size: KUMI_LLCM_SIZE, else 2m: a quarter of the LLCM holds the
 *     team areas, 4 KiB each, so 2m gives 128 team slots (KUMI_TEAM_MAX):
 *     >= 64 SHMEM teams alive at once plus the world, shared and the
 *     teams the collectives make.
 *   SHMEM_DEBUG: KUMI_LOG=debug unless KUMI_LOG is set.
 * After kumi_init PE 0 prints what SHMEM_VERSION and SHMEM_INFO ask for.
 */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shmem_impl.h"

/* KUMI_SHMEM_ENV(field, "NAME", type, "default", "meaning")
 *   SIZE  bytes: an integer or decimal number with an optional K, M, G or T
 *         suffix (powers of 1024; upper or lower case)
 *   FLAG  set to anything but 0, no, false or off (or empty): on */
#define KUMI_SHMEM_ENV_TABLE(KUMI_SHMEM_ENV)                                                 \
    KUMI_SHMEM_ENV(symmetric_size, "SHMEM_SYMMETRIC_SIZE", SIZE, "1g",                      \
        "Symmetric heap bytes per PE (K/M/G/T suffix, decimals allowed); sets KUMI_HEAP_SIZE") \
    KUMI_SHMEM_ENV(sma_symmetric_size, "SMA_SYMMETRIC_SIZE", SIZE, "1g",                    \
        "Deprecated spelling of SHMEM_SYMMETRIC_SIZE (which wins when both are set)")       \
    KUMI_SHMEM_ENV(version, "SHMEM_VERSION", FLAG, "0",                                     \
        "PE 0 prints the library name and version at start-up")                             \
    KUMI_SHMEM_ENV(sma_version, "SMA_VERSION", FLAG, "0",                                   \
        "Deprecated spelling of SHMEM_VERSION")                                              \
    KUMI_SHMEM_ENV(info, "SHMEM_INFO", FLAG, "0",                                           \
        "PE 0 prints every variable of this table with its value, default and meaning")     \
    KUMI_SHMEM_ENV(sma_info, "SMA_INFO", FLAG, "0", "Deprecated spelling of SHMEM_INFO")    \
    KUMI_SHMEM_ENV(debug, "SHMEM_DEBUG", FLAG, "0",                                         \
        "More messages: what shmem_init set up, KUMI_LOG=debug unless KUMI_LOG is set")     \
    KUMI_SHMEM_ENV(sma_debug, "SMA_DEBUG", FLAG, "0", "Deprecated spelling of SHMEM_DEBUG")

/* Runtime variables whose default differs for SHMEM programs (the value
 * used when neither it nor its SHMEM spelling is set). */
#define KUMI_SHMEM_RT_DEFAULTS(KUMI_SHMEM_RT)                                                \
    KUMI_SHMEM_RT("KUMI_HEAP_SIZE", "1g",                                                    \
        "Symmetric heap per PE when SHMEM_SYMMETRIC_SIZE is unset (reserved, not committed)") \
    KUMI_SHMEM_RT("KUMI_LLCM_SIZE", "2m",                                                    \
        "LLCM per PE: 128 team slots (>= 64 SHMEM teams alive at once)")

struct kumi_shmem_env {
#define KUMI_SHMEM_ENV_FIELD(field, name, type, def, help) const char *field;
    KUMI_SHMEM_ENV_TABLE(KUMI_SHMEM_ENV_FIELD)
#undef KUMI_SHMEM_ENV_FIELD
};

struct kumi_shmem_env_row {
    const char *name, *type, *def, *help;
};
static const struct kumi_shmem_env_row kumi_shmem_env_rows[] = {
#define KUMI_SHMEM_ENV_ROW(field, name, type, def, help) { name, #type, def, help },
    KUMI_SHMEM_ENV_TABLE(KUMI_SHMEM_ENV_ROW)
#undef KUMI_SHMEM_ENV_ROW
};
static const struct kumi_shmem_env_row kumi_shmem_rt_rows[] = {
#define KUMI_SHMEM_RT_ROW(name, def, help) { name, "SIZE", def, help },
    KUMI_SHMEM_RT_DEFAULTS(KUMI_SHMEM_RT_ROW)
#undef KUMI_SHMEM_RT_ROW
};

static int kumi_shmem_flag(const char *v)
{
    static const char *const off[] = { "0", "no", "false", "off" };

    if (v == NULL)
        return 0;
    for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++)
        if (strcasecmp(v, off[i]) == 0)
            return 0;
    return 1;
}

/* "1.5G" -> bytes; -1 for anything that is not a size */
static int kumi_shmem_parse_size(const char *text, uint64_t *out)
{
    const char *p = text;
    char       *end;
    double      v, mult = 1;

    if (p == NULL || !(isdigit((unsigned char)*p) || *p == '.'))
        return -1;
    errno = 0;
    v = strtod(p, &end);
    if (errno != 0 || end == p || !isfinite(v) || v < 0)
        return -1;
    switch (*end) {
    case '\0':          break;
    case 'k': case 'K': mult = 1024.0; end++; break;
    case 'm': case 'M': mult = 1024.0 * 1024; end++; break;
    case 'g': case 'G': mult = 1024.0 * 1024 * 1024; end++; break;
    case 't': case 'T': mult = 1024.0 * 1024 * 1024 * 1024; end++; break;
    default:            return -1;
    }
    if (mult > 1 && (*end == 'b' || *end == 'B'))
        end++;
    if (*end != '\0' || v * mult > 18446744073709549568.0)
        return -1;
    *out = (uint64_t)ceil(v * mult);
    return 0;
}

static struct kumi_shmem_env kumi_shmem_env_read(void)
{
    struct kumi_shmem_env e;
#define KUMI_SHMEM_ENV_GET(field, name, type, def, help) e.field = getenv(name);
    KUMI_SHMEM_ENV_TABLE(KUMI_SHMEM_ENV_GET)
#undef KUMI_SHMEM_ENV_GET
    return e;
}

int kumi_shmem_env_before_init(const char *call)
{
    struct kumi_shmem_env e = kumi_shmem_env_read();
    const char *size_var = e.symmetric_size ? "SHMEM_SYMMETRIC_SIZE" : "SMA_SYMMETRIC_SIZE";
    const char *size_txt = e.symmetric_size ? e.symmetric_size : e.sma_symmetric_size;
    char        buf[32];

    kumi_shmem.debug = kumi_shmem_flag(e.debug) || kumi_shmem_flag(e.sma_debug);
    if (size_txt != NULL) {
        uint64_t bytes;
        if (kumi_shmem_parse_size(size_txt, &bytes) != 0)
            return kumi_shmem_error(KUMI_ERR_INVALID, call, "%s='%s': not a size (a number "
                                    "with an optional K, M, G or T suffix, e.g. 512M or 1.5G)",
                                    size_var, size_txt);
        if (bytes > (1ull << 40))
            return kumi_shmem_error(KUMI_ERR_INVALID, call, "%s='%s': more than 1T per PE",
                                    size_var, size_txt);
        if (bytes < (1ull << 20))
            bytes = 1ull << 20;          /* kumi's smallest heap; SHMEM has no minimum */
        snprintf(buf, sizeof(buf), "%llu", (unsigned long long)bytes);
        if (kumi_shmem.debug && getenv("KUMI_HEAP_SIZE") != NULL)
            fprintf(stderr, "kumi: %s: %s=%s replaces KUMI_HEAP_SIZE=%s\n", call, size_var,
                    size_txt, getenv("KUMI_HEAP_SIZE"));
        setenv("KUMI_HEAP_SIZE", buf, 1);
    }
#define KUMI_SHMEM_RT_SET(name, def, help) setenv(name, def, 0);
    KUMI_SHMEM_RT_DEFAULTS(KUMI_SHMEM_RT_SET)
#undef KUMI_SHMEM_RT_SET
    if (kumi_shmem.debug)
        setenv("KUMI_LOG", "debug", 0);
    return 0;
}

static void kumi_shmem_env_print(FILE *out)
{
    fprintf(out, "SHMEM environment (%s):\n", SHMEM_VENDOR_STRING);
    for (size_t i = 0; i < sizeof(kumi_shmem_env_rows) / sizeof(kumi_shmem_env_rows[0]); i++) {
        const struct kumi_shmem_env_row *r = &kumi_shmem_env_rows[i];
        const char *v = getenv(r->name);
        fprintf(out, "  %-22s %-4s value %s%s%s, default %s\n      %s\n", r->name, r->type,
                v ? "'" : "", v ? v : "(unset)", v ? "'" : "", r->def, r->help);
    }
    fprintf(out, "kumi runtime variables with SHMEM defaults (`kumirun --help-env` lists all):\n");
    for (size_t i = 0; i < sizeof(kumi_shmem_rt_rows) / sizeof(kumi_shmem_rt_rows[0]); i++) {
        const struct kumi_shmem_env_row *r = &kumi_shmem_rt_rows[i];
        const char *v = getenv(r->name);
        fprintf(out, "  %-22s %-4s value '%s', default %s\n      %s\n", r->name, r->type,
                v ? v : "?", r->def, r->help);
    }
    fprintf(out, "  in force: heap %llu bytes per PE, LLCM %llu bytes, %d PEs on %s, "
            "thread level %d\n", (unsigned long long)kumi_rt.cfg.heap_size,
            (unsigned long long)kumi_rt.cfg.llcm_size, kumi_shmem.n_pes, kumi_transport_name(),
            kumi_shmem.thread_level);
    fflush(out);
}

void kumi_shmem_env_after_init(void)
{
    struct kumi_shmem_env e = kumi_shmem_env_read();

    if (kumi_shmem.my_pe == 0 && (kumi_shmem_flag(e.version) || kumi_shmem_flag(e.sma_version))) {
        printf("SHMEM_VERSION: %s\n", SHMEM_VENDOR_STRING);
        fflush(stdout);
    }
    if (kumi_shmem.my_pe == 0 && (kumi_shmem_flag(e.info) || kumi_shmem_flag(e.sma_info)))
        kumi_shmem_env_print(stdout);
    if (kumi_shmem.debug)
        kumi_rt_log(KUMI_LOG_INFO, "shmem_init: PE %d of %d on %s, heap %llu bytes, thread "
                    "level %d", kumi_shmem.my_pe, kumi_shmem.n_pes, kumi_transport_name(),
                    (unsigned long long)kumi_rt.cfg.heap_size, kumi_shmem.thread_level);
}

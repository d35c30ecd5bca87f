/* config.c -- parsing the variables declared in config_table.h. */
#include "config.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "kumi.h"
#include "launch.h"

struct kumi_cfg_entry {
    const char        *name;
    enum kumi_cfg_type type;
    const char        *def;
    uint64_t           min, max;
    const char        *choices;
    const char        *help;
    size_t             offset;
};

static const struct kumi_cfg_entry kumi_cfg_table[] = {
#define KUMI_CFG(field, name, type, def, min, max, choices, help) \
    { name, KUMI_CFG_##type, def, min, max, choices, help, offsetof(struct kumi_cfg, field) },
#include "config_table.h"
#undef KUMI_CFG
};
#define KUMI_CFG_COUNT (sizeof(kumi_cfg_table) / sizeof(kumi_cfg_table[0]))

/* Variables kumirun sets for its PEs: known, but not user settings. */
static const char *const kumi_cfg_launcher_vars[] = {
    KUMI_ENV_JOB_ID, KUMI_ENV_RANK, KUMI_ENV_SIZE, KUMI_ENV_OVERSUB, KUMI_ENV_LAUNCHER_PID,
    KUMI_ENV_LLC_CORES, KUMI_ENV_RDV, KUMI_ENV_JOB_KEY, KUMI_ENV_TCP_ADDR, KUMI_ENV_REMOTE,
    KUMI_ENV_NODE_MAP,
    /* read by transport/plugin.c when it loads a plugin (a path: no table
     * type fits it); kumi_cfg_print_help lists it */
    "KUMI_PLUGIN_DIR",
};

int kumi_cfg_parse_size(const char *text, uint64_t *out)
{
    const char *p = text;
    uint64_t    v = 0, mult = 1;

    if (p == NULL || !isdigit((unsigned char)*p))
        return KUMI_ERR_INVALID;
    for (; isdigit((unsigned char)*p); p++) {
        unsigned d = (unsigned)(*p - '0');
        if (v > (UINT64_MAX - d) / 10)
            return KUMI_ERR_INVALID;
        v = v * 10 + d;
    }
    switch (*p) {
    case '\0':          break;
    case 'k': case 'K': mult = 1ull << 10; p++; break;
    case 'm': case 'M': mult = 1ull << 20; p++; break;
    case 'g': case 'G': mult = 1ull << 30; p++; break;
    case 't': case 'T': mult = 1ull << 40; p++; break;
    default:            return KUMI_ERR_INVALID;
    }
    if (mult > 1 && (*p == 'b' || *p == 'B'))   /* "256mb" */
        p++;
    if (*p != '\0' || (v != 0 && v > UINT64_MAX / mult))
        return KUMI_ERR_INVALID;
    *out = v * mult;
    return KUMI_OK;
}

static int kumi_cfg_parse_uint(const char *text, uint64_t *out)
{
    char *end;

    if (!isdigit((unsigned char)text[0]))
        return KUMI_ERR_INVALID;
    errno = 0;
    /* decimal, or hexadecimal with 0x (addresses such as KUMI_DSM_BASE) */
    int hex = text[0] == '0' && (text[1] == 'x' || text[1] == 'X');
    unsigned long long v = strtoull(text, &end, hex ? 16 : 10);
    if (errno != 0 || *end != '\0' || (hex && text[2] == '\0'))
        return KUMI_ERR_INVALID;
    *out = v;
    return KUMI_OK;
}

static int kumi_cfg_parse_bool(const char *text, int *out)
{
    static const char *const yes[] = { "1", "yes", "true", "on" };
    static const char *const no[]  = { "0", "no", "false", "off" };

    for (size_t i = 0; i < 4; i++) {
        if (strcasecmp(text, yes[i]) == 0) { *out = 1; return KUMI_OK; }
        if (strcasecmp(text, no[i]) == 0)  { *out = 0; return KUMI_OK; }
    }
    return KUMI_ERR_INVALID;
}

/* Index of text among "a|b|c", or -1. */
static int kumi_cfg_choice_index(const char *choices, const char *text)
{
    size_t tlen = strlen(text);
    int    idx  = 0;

    for (const char *p = choices; ; idx++) {
        const char *bar = strchr(p, '|');
        size_t      len = bar ? (size_t)(bar - p) : strlen(p);
        if (len == tlen && strncmp(p, text, len) == 0)
            return idx;
        if (bar == NULL)
            return -1;
        p = bar + 1;
    }
}

static const struct kumi_cfg_entry *kumi_cfg_find(const char *name)
{
    for (size_t i = 0; i < KUMI_CFG_COUNT; i++)
        if (strcmp(kumi_cfg_table[i].name, name) == 0)
            return &kumi_cfg_table[i];
    return NULL;
}

const char *kumi_cfg_choice_name(const char *var, int index)
{
    static __thread char buf[32];
    const struct kumi_cfg_entry *e = kumi_cfg_find(var);
    const char *p;

    if (e == NULL || e->type != KUMI_CFG_CHOICE || index < 0)
        return "?";
    p = e->choices;
    for (int i = 0; i < index && p != NULL; i++) {
        p = strchr(p, '|');
        if (p != NULL)
            p++;
    }
    if (p == NULL)
        return "?";
    size_t len = strcspn(p, "|");
    if (len >= sizeof(buf))
        len = sizeof(buf) - 1;
    memcpy(buf, p, len);
    buf[len] = '\0';
    return buf;
}

static int kumi_cfg_parse_one(const struct kumi_cfg_entry *e, const char *text, void *field,
                              char *err, size_t errlen)
{
    uint64_t v;
    int      rc;

    switch (e->type) {
    case KUMI_CFG_CHOICE:
        rc = kumi_cfg_choice_index(e->choices, text);
        if (rc < 0) {
            snprintf(err, errlen, "%s='%s': not one of %s", e->name, text, e->choices);
            return KUMI_ERR_INVALID;
        }
        *(int *)field = rc;
        return KUMI_OK;
    case KUMI_CFG_BOOL:
        if (kumi_cfg_parse_bool(text, (int *)field) != KUMI_OK) {
            snprintf(err, errlen, "%s='%s': not a boolean (use 0 or 1)", e->name, text);
            return KUMI_ERR_INVALID;
        }
        return KUMI_OK;
    case KUMI_CFG_SIZE:
        if (kumi_cfg_parse_size(text, &v) != KUMI_OK) {
            snprintf(err, errlen,
                     "%s='%s': not a size (digits with an optional k, m, g or t suffix, "
                     "e.g. 256m)", e->name, text);
            return KUMI_ERR_INVALID;
        }
        break;
    case KUMI_CFG_UINT:
        if (kumi_cfg_parse_uint(text, &v) != KUMI_OK) {
            snprintf(err, errlen, "%s='%s': not a whole number (decimal, or hex with 0x)", e->name, text);
            return KUMI_ERR_INVALID;
        }
        break;
    default:
        return KUMI_ERR_INVALID;
    }
    if (v < e->min || v > e->max) {
        snprintf(err, errlen, "%s='%s': out of range (%llu to %llu)", e->name, text,
                 (unsigned long long)e->min, (unsigned long long)e->max);
        return KUMI_ERR_INVALID;
    }
    *(uint64_t *)field = v;
    return KUMI_OK;
}

int kumi_cfg_parse(struct kumi_cfg *cfg, kumi_cfg_getter get, void *arg, char *err,
                   size_t errlen)
{
    memset(cfg, 0, sizeof(*cfg));
    for (size_t i = 0; i < KUMI_CFG_COUNT; i++) {
        const struct kumi_cfg_entry *e = &kumi_cfg_table[i];
        const char *text = get(e->name, arg);
        int rc;

        if (text == NULL)
            text = e->def;
        rc = kumi_cfg_parse_one(e, text, (char *)cfg + e->offset, err, errlen);
        if (rc != KUMI_OK)
            return rc;
    }
    if (cfg->llcm_size % 4096 != 0) {
        snprintf(err, errlen, "KUMI_LLCM_SIZE=%llu: not a multiple of 4k",
                 (unsigned long long)cfg->llcm_size);
        return KUMI_ERR_INVALID;
    }
    if (cfg->dsm_dist_block & (cfg->dsm_dist_block - 1)) {
        snprintf(err, errlen, "KUMI_DSM_DIST_BLOCK=%llu: not a power of two",
                 (unsigned long long)cfg->dsm_dist_block);
        return KUMI_ERR_INVALID;
    }
    return KUMI_OK;
}

static const char *kumi_cfg_getenv(const char *name, void *arg)
{
    (void)arg;
    return getenv(name);
}

int kumi_cfg_load(struct kumi_cfg *cfg, char *err, size_t errlen)
{
    return kumi_cfg_parse(cfg, kumi_cfg_getenv, NULL, err, errlen);
}

void kumi_cfg_print_help(FILE *out)
{
    fprintf(out, "kumi environment variables (a bad value is an error at start-up):\n\n");
    for (size_t i = 0; i < KUMI_CFG_COUNT; i++) {
        const struct kumi_cfg_entry *e = &kumi_cfg_table[i];
        const char *type = e->type == KUMI_CFG_CHOICE ? e->choices
                         : e->type == KUMI_CFG_SIZE   ? "size"
                         : e->type == KUMI_CFG_UINT   ? "number" : "0|1";
        const char *cur = getenv(e->name);
        fprintf(out, "  %-22s %-24s default %s%s%s%s\n      %s\n", e->name, type, e->def,
                cur ? " (now '" : "", cur ? cur : "", cur ? "')" : "", e->help);
    }
    const char *cur = getenv("KUMI_PLUGIN_DIR");
    fprintf(out, "  %-22s %-24s default %s%s%s%s\n      %s\n", "KUMI_PLUGIN_DIR", "directory",
            "LIBDIR/kumi", cur ? " (now '" : "", cur ? cur : "", cur ? "')" : "",
            "Where transports built as plugins (ucx: libkumi-ucx.so) are loaded from; by "
            "default the directory kumi next to libkumi");
}

/* Levenshtein distance, small strings only: for "did you mean". */
static size_t kumi_cfg_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b), row[64];

    if (lb >= 64 || la >= 64)
        return (size_t)-1;
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t prev = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t cur = row[j];
            size_t sub = prev + (a[i - 1] != b[j - 1]);
            size_t best = row[j] + 1 < row[j - 1] + 1 ? row[j] + 1 : row[j - 1] + 1;
            row[j] = sub < best ? sub : best;
            prev = cur;
        }
    }
    return row[lb];
}

int kumi_cfg_check_unknown(char **envp,
                           void (*warn)(const char *name, const char *suggestion, void *arg),
                           void *arg)
{
    int count = 0;

    for (char **ep = envp; ep != NULL && *ep != NULL; ep++) {
        char   name[128];
        size_t len = strcspn(*ep, "=");
        int    known = 0;

        if (strncmp(*ep, "KUMI_", 5) != 0 || len >= sizeof(name))
            continue;
        memcpy(name, *ep, len);
        name[len] = '\0';
        if (kumi_cfg_find(name) != NULL)
            continue;
        for (size_t i = 0; i < sizeof(kumi_cfg_launcher_vars) / sizeof(char *); i++)
            known |= strcmp(kumi_cfg_launcher_vars[i], name) == 0;
        if (known)
            continue;
        const char *best = NULL;
        size_t      bestd = 4;
        for (size_t i = 0; i < KUMI_CFG_COUNT; i++) {
            size_t d = kumi_cfg_distance(name, kumi_cfg_table[i].name);
            if (d < bestd) {
                bestd = d;
                best  = kumi_cfg_table[i].name;
            }
        }
        warn(name, best, arg);
        count++;
    }
    return count;
}

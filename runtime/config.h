/*
 * config.h -- kumi's configuration, parsed from the environment once at
 * start-up (by kumi_init, and by kumirun before it launches anything, so a
 * bad value is an error before the job starts).
 */
#ifndef KUMI_CONFIG_H
#define KUMI_CONFIG_H

#include <stdint.h>
#include <stdio.h>

enum kumi_cfg_type { KUMI_CFG_CHOICE, KUMI_CFG_SIZE, KUMI_CFG_UINT, KUMI_CFG_BOOL };

/* choice indices, in the order of the table's choices */
/* KUMI_TRANSPORT: 0 is auto, i > 0 the transport kumi_tp_builtin(i - 1) */
enum { KUMI_TRANSPORT_AUTO };
enum { KUMI_BOOT_AUTO, KUMI_BOOT_KUMIRUN, KUMI_BOOT_PMIX, KUMI_BOOT_PMI2, KUMI_BOOT_SINGLETON };
enum { KUMI_WAIT_AUTO, KUMI_WAIT_SPIN, KUMI_WAIT_YIELD, KUMI_WAIT_BLOCK };
enum { KUMI_LOG_ERROR, KUMI_LOG_WARN, KUMI_LOG_INFO, KUMI_LOG_DEBUG };
enum { KUMI_BARRIER_AUTO, KUMI_BARRIER_TREE, KUMI_BARRIER_DISSEM, KUMI_BARRIER_COUNTER,
       KUMI_BARRIER_MCAST, KUMI_BARRIER_A2A, KUMI_BARRIER_WORD };
enum { KUMI_RELEASE_AUTO, KUMI_RELEASE_KICK, KUMI_RELEASE_POLL };
enum { KUMI_REDUCE_SMALL_AUTO, KUMI_REDUCE_SMALL_TREE, KUMI_REDUCE_SMALL_RD,
       KUMI_REDUCE_SMALL_XCHG, KUMI_REDUCE_SMALL_LINE };
enum { KUMI_ALLTOALL_STAGGERED, KUMI_ALLTOALL_NAIVE };
enum { KUMI_SYMDATA_AUTO, KUMI_SYMDATA_ON, KUMI_SYMDATA_OFF };

#define KUMI_CFG_CTYPE_CHOICE int
#define KUMI_CFG_CTYPE_SIZE   uint64_t
#define KUMI_CFG_CTYPE_UINT   uint64_t
#define KUMI_CFG_CTYPE_BOOL   int

struct kumi_cfg {
#define KUMI_CFG(field, name, type, def, min, max, choices, help) \
    KUMI_CFG_CTYPE_##type field;
#include "config_table.h"
#undef KUMI_CFG
};

/* Where values come from: getenv, or a table in unit tests. */
typedef const char *(*kumi_cfg_getter)(const char *name, void *arg);

/* Parses every variable; on the first bad one writes a one-line message
 * naming it into err and returns KUMI_ERR_INVALID. */
int kumi_cfg_parse(struct kumi_cfg *cfg, kumi_cfg_getter get, void *arg,
                   char *err, size_t errlen);
/* The same from the process environment. */
int kumi_cfg_load(struct kumi_cfg *cfg, char *err, size_t errlen);

/* "256m" -> 268435456; KUMI_ERR_INVALID for anything else. */
int kumi_cfg_parse_size(const char *text, uint64_t *out);

/* Name of the choice a CHOICE field holds (e.g. "shm"). */
const char *kumi_cfg_choice_name(const char *var, int index);

/* The table as text, for kumirun --help-env. */
void kumi_cfg_print_help(FILE *out);

/* Names of KUMI_* variables in envp that kumi does not know (typos),
 * each reported through warn(name, suggestion, arg); returns the count. */
int kumi_cfg_check_unknown(char **envp,
                           void (*warn)(const char *name, const char *suggestion, void *arg),
                           void *arg);

#endif /* KUMI_CONFIG_H */

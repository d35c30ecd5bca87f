/* plugin.c -- transports built as plugins (transports.h lists them as any
 * other): libkumi holds a stand-in table per plugin, whose available() and
 * open() load lib/kumi/libkumi-NAME.so with dlopen and hand over to the
 * plugin's own table, so a program that never asks for the transport
 * never loads it, nor the libraries it needs (ucx: libucp, libucs and
 * their signal handlers).
 *
 * Where the plugin is looked for, first hit wins:
 *   KUMI_PLUGIN_DIR, when set (then only there);
 *   DIR/kumi, DIR being the directory of the object holding libkumi's code
 *   (libkumi.so: LIBDIR/kumi, installed or in the build tree; a program
 *   linked with the static libkumi: its own directory, so also
 *   DIR/<bindir to libdir>/kumi and DIR/../lib/kumi);
 *   the libdir this libkumi was configured to install into.
 * So a moved prefix still works: the path follows libkumi, not the
 * configured prefix. */
#include "transport.h"

#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "transports.h"

#ifndef KUMI_PLUGIN_REL_LIBDIR
#define KUMI_PLUGIN_REL_LIBDIR "../lib"
#endif
#ifndef KUMI_PLUGIN_FULL_LIBDIR
#define KUMI_PLUGIN_FULL_LIBDIR "/usr/local/lib"
#endif

#define KUMI_PLUGIN_MAX_TRIES 4

struct kumi_tp_plugin {
    const char               *name;
    const struct kumi_tp_ops *ops;     /* filled, once loaded                */
    struct kumi_tp_ops        filled;  /* its table with stubs (kumi_tp_fill) */
    int                       tried;   /* loading failed: why holds it       */
    char                      why[1024];
};

static pthread_mutex_t kumi_tp_plugin_lock = PTHREAD_MUTEX_INITIALIZER;

/* The directory of the object holding this code, in dir (no trailing /). */
static int kumi_tp_plugin_self_dir(char *dir, size_t len)
{
    Dl_info info;
    char    exe[PATH_MAX];
    const char *file = NULL;

    if (dladdr((void *)kumi_tp_plugin_self_dir, &info) != 0 && info.dli_fname != NULL
        && strchr(info.dli_fname, '/') != NULL)
        file = info.dli_fname;
    if (file == NULL || strstr(file, "libkumi") == NULL) {
        /* the main program (static libkumi): dladdr names it as it was
         * invoked, maybe through PATH; /proc knows where it is */
        ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

        if (n > 0) {
            exe[n] = '\0';
            file = exe;
        }
    }
    if (file == NULL)
        return -1;
    const char *slash = strrchr(file, '/');
    size_t      n = (size_t)(slash - file);

    if (n >= len)
        return -1;
    memcpy(dir, file, n);
    dir[n] = '\0';
    return 0;
}

/* path = DIR[/MID]/libkumi-NAME.so; 0, or -1 if it does not fit */
static int kumi_tp_plugin_file(char *path, const char *dir, const char *mid, const char *name)
{
    int n = snprintf(path, PATH_MAX, "%s%s%s/libkumi-%s.so", dir, *mid ? "/" : "", mid, name);

    return n > 0 && n < PATH_MAX ? 0 : -1;
}

/* Fills path[i] with the candidates, returns how many. */
static int kumi_tp_plugin_paths(const char *name, char path[][PATH_MAX], const char **env)
{
    char dir[PATH_MAX];
    int  n = 0;

    *env = getenv("KUMI_PLUGIN_DIR");
    if (*env != NULL && **env != '\0')
        return kumi_tp_plugin_file(path[0], *env, "", name) == 0;
    *env = NULL;
    if (kumi_tp_plugin_self_dir(dir, sizeof(dir)) == 0) {
        n += kumi_tp_plugin_file(path[n], dir, "kumi", name) == 0;
        n += kumi_tp_plugin_file(path[n], dir, KUMI_PLUGIN_REL_LIBDIR "/kumi", name) == 0;
        if (strcmp(KUMI_PLUGIN_REL_LIBDIR, "../lib") != 0)
            n += kumi_tp_plugin_file(path[n], dir, "../lib/kumi", name) == 0;
    }
    n += kumi_tp_plugin_file(path[n], KUMI_PLUGIN_FULL_LIBDIR, "kumi", name) == 0;
    return n;
}

/* Loads p once; KUMI_OK with p->ops set, or KUMI_ERR_UNSUPPORTED with the
 * reason (the file and dlerror()) in p->why. */
static int kumi_tp_plugin_load(struct kumi_tp_plugin *p)
{
    char        path[KUMI_PLUGIN_MAX_TRIES][PATH_MAX];
    char        sym[64];
    const char *env;
    int         rc = KUMI_OK;

    pthread_mutex_lock(&kumi_tp_plugin_lock);
    if (p->ops != NULL || p->tried)
        goto out;
    int   n = kumi_tp_plugin_paths(p->name, path, &env);
    int   at = 0;
    void *h = NULL;

    /* the first candidate that exists; if none does, the first, so that
     * dlerror() says what is missing */
    if (n == 0) {
        snprintf(p->why, sizeof(p->why), "%s is a plugin, and its path is too long", p->name);
        p->tried = 1;
        goto out;
    }
    for (int i = 0; i < n; i++)
        if (access(path[i], F_OK) == 0) {
            at = i;
            break;
        }
    h = dlopen(path[at], RTLD_NOW | RTLD_LOCAL);
    if (h == NULL) {
        const char *err = dlerror();
        char        more[400] = "";

        if (env != NULL)
            (void)!snprintf(more, sizeof(more), "; KUMI_PLUGIN_DIR=%.300s", env);
        else if (n > 1 && access(path[at], F_OK) != 0)
            (void)!snprintf(more, sizeof(more), "; also looked for %.300s and %d more; "
                            "KUMI_PLUGIN_DIR names its directory", path[1], n - 2);
        /* dlerror() names the file */
        if (err == NULL)
            err = path[at];
        (void)!snprintf(p->why, sizeof(p->why), "%s is a plugin, and loading it failed: %.500s%s",
                        p->name, err, more);
        p->tried = 1;
        goto out;
    }
    /* not kumi_tp_NAME_ops: libkumi's stand-in has that name */
    snprintf(sym, sizeof(sym), "kumi_tp_%s_plugin", p->name);
    const struct kumi_tp_ops *ops = (const struct kumi_tp_ops *)dlsym(h, sym);

    if (ops == NULL || ops->size != sizeof(struct kumi_tp_ops) || ops->name == NULL
        || strcmp(ops->name, p->name) != 0 || ops->open == NULL) {
        (void)!snprintf(p->why, sizeof(p->why),
                 "%s is a plugin, and %.400s is not one this libkumi can use (%s %s)", p->name,
                 path[at], ops == NULL ? "it defines no" : "another version? its table differs:",
                 sym);
        dlclose(h);
        p->tried = 1;
        goto out;
    }
    /* never closed: the transport may leave threads and handlers behind.
     * Its NULL ops become stubs, as a built-in table's: callers never test */
    kumi_tp_fill(&p->filled, ops);
    __atomic_store_n(&p->ops, &p->filled, __ATOMIC_RELEASE);
out:
    if (p->ops == NULL)
        rc = KUMI_ERR_UNSUPPORTED;
    pthread_mutex_unlock(&kumi_tp_plugin_lock);
    return rc;
}

static int kumi_tp_plugin_available(struct kumi_tp_plugin *pl, const struct kumi_tp_params *p,
                                    char *why, size_t len)
{
    if (kumi_tp_plugin_load(pl) != KUMI_OK) {
        snprintf(why, len, "%s", pl->why);
        return KUMI_ERR_UNSUPPORTED;
    }
    if (p != NULL)
        return pl->ops->available(p, why, len);
    return KUMI_OK;
}

/* open hands the job to the plugin's table: from here on tp->ops is it */
static int kumi_tp_plugin_open(struct kumi_tp_plugin *pl, struct kumi_tp *tp,
                               const struct kumi_tp_params *p)
{
    if (kumi_tp_plugin_load(pl) != KUMI_OK)
        return KUMI_ERR_UNSUPPORTED;
    tp->ops = pl->ops;
    return pl->ops->open(tp, p);
}

#ifdef KUMI_HAVE_UCX
static struct kumi_tp_plugin kumi_tp_ucx_plugin = { .name = "ucx" };

static int kumi_tp_ucx_available(const struct kumi_tp_params *p, char *why, size_t len)
{
    return kumi_tp_plugin_available(&kumi_tp_ucx_plugin, p, why, len);
}

static int kumi_tp_ucx_open(struct kumi_tp *tp, const struct kumi_tp_params *p)
{
    return kumi_tp_plugin_open(&kumi_tp_ucx_plugin, tp, p);
}

/* The stand-in: the registry's entry until open() replaces it. Priority
 * and flags must be the plugin's own (kumi_tp_pick reads them here). */
const struct kumi_tp_ops kumi_tp_ucx_ops = {
    .size      = sizeof(struct kumi_tp_ops),
    .name      = "ucx",
    .open      = kumi_tp_ucx_open,
    .priority  = 5,
    .available = kumi_tp_ucx_available,
};
#endif

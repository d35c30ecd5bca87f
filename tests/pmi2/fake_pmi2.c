/*
 * fake_pmi2.c -- a stand-in for Slurm's libpmi2.so.0, so the PMI-2
 * bootstrap (runtime/boot_pmi2.c: dlopen, PMI2_KVS_*) runs in the suite
 * without Slurm. tests/pmi2/fake_srun.sh starts the PEs with PMI_FD,
 * PMI_RANK, PMI_SIZE and FAKE_PMI2_DIR, a directory the PEs share:
 *   PMI2_KVS_Put    keeps the pair until the next fence
 *   PMI2_KVS_Fence  writes this PE's pairs of the epoch to kv.<rank>.<epoch>
 *                   (key=value lines), then fence.<epoch>.<rank>, and waits
 *                   for every PE's fence file (60 s at most)
 *   PMI2_KVS_Get    the newest value of key in any PE's files of past
 *                   epochs: as in Slurm, the store is the job's, and the
 *                   PE named is only a hint
 *   PMI2_Abort      writes abort (the message) and exits 1: fake_srun then
 *                   ends the others
 * Only what kumi calls; no spawning, no node attributes.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define FAKE_MAX_PAIRS 64
#define FAKE_KEYLEN    64
#define FAKE_VALLEN    1024

static int  fake_rank = -1, fake_size, fake_epoch;
static char fake_dir[512];
static char fake_keys[FAKE_MAX_PAIRS][FAKE_KEYLEN], fake_vals[FAKE_MAX_PAIRS][FAKE_VALLEN];
static int  fake_npairs;

int PMI2_Init(int *spawned, int *size, int *rank, int *appnum)
{
    const char *r = getenv("PMI_RANK"), *s = getenv("PMI_SIZE"), *d = getenv("FAKE_PMI2_DIR");

    if (r == NULL || s == NULL || d == NULL || getenv("PMI_FD") == NULL)
        return 14;   /* PMI2_ERR_INIT */
    fake_rank = atoi(r);
    fake_size = atoi(s);
    snprintf(fake_dir, sizeof(fake_dir), "%s", d);
    *spawned = 0;
    *size    = fake_size;
    *rank    = fake_rank;
    *appnum  = 0;
    return 0;
}

int PMI2_Finalize(void)
{
    return 0;
}

int PMI2_Abort(int flag, const char msg[])
{
    char  path[600];
    FILE *f;

    (void)flag;
    snprintf(path, sizeof(path), "%s/abort", fake_dir);
    if ((f = fopen(path, "a")) != NULL) {
        fprintf(f, "PE %d: %s\n", fake_rank, msg);
        fclose(f);
    }
    _exit(1);
}

int PMI2_Job_GetId(char jobid[], int jobid_size)
{
    const char *j = getenv("PMI_JOBID");

    snprintf(jobid, (size_t)jobid_size, "fake.%s", j != NULL ? j : "0");
    return 0;
}

int PMI2_KVS_Put(const char key[], const char value[])
{
    if (fake_npairs == FAKE_MAX_PAIRS || strlen(key) >= FAKE_KEYLEN ||
        strlen(value) >= FAKE_VALLEN || strchr(key, '=') != NULL)
        return 1;
    snprintf(fake_keys[fake_npairs], FAKE_KEYLEN, "%s", key);
    snprintf(fake_vals[fake_npairs], FAKE_VALLEN, "%s", value);
    fake_npairs++;
    return 0;
}

int PMI2_KVS_Fence(void)
{
    char            path[600], tmp[620];
    FILE           *f;
    struct timespec nap = { 0, 1000000 };

    snprintf(path, sizeof(path), "%s/kv.%d.%d", fake_dir, fake_rank, fake_epoch);
    snprintf(tmp, sizeof(tmp), "%s.tmp", path);
    if ((f = fopen(tmp, "w")) == NULL)
        return 1;
    for (int i = 0; i < fake_npairs; i++)
        fprintf(f, "%s=%s\n", fake_keys[i], fake_vals[i]);
    fclose(f);
    rename(tmp, path);
    fake_npairs = 0;
    snprintf(path, sizeof(path), "%s/fence.%d.%d", fake_dir, fake_epoch, fake_rank);
    if ((f = fopen(path, "w")) == NULL)
        return 1;
    fclose(f);
    for (int r = 0, waited = 0; r < fake_size;) {
        snprintf(path, sizeof(path), "%s/fence.%d.%d", fake_dir, fake_epoch, r);
        if (access(path, F_OK) == 0) {
            r++;
            continue;
        }
        if (++waited > 60000)
            return 1;
        nanosleep(&nap, NULL);
    }
    fake_epoch++;
    return 0;
}

int PMI2_KVS_Get(const char *jobid, int src, const char key[], char value[], int maxvalue,
                 int *vallen)
{
    char line[FAKE_KEYLEN + FAKE_VALLEN + 4], path[600];
    int  found = 0;

    (void)jobid;
    (void)src;
    for (int e = 0; e < fake_epoch; e++)
    for (int r = 0; r < fake_size; r++) {
        FILE *f;

        snprintf(path, sizeof(path), "%s/kv.%d.%d", fake_dir, r, e);
        if ((f = fopen(path, "r")) == NULL)
            continue;
        while (fgets(line, sizeof(line), f) != NULL) {
            char *eq = strchr(line, '=');
            if (eq == NULL)
                continue;
            *eq = '\0';
            eq[strcspn(eq + 1, "\n") + 1] = '\0';
            if (strcmp(line, key) == 0 && (int)strlen(eq + 1) < maxvalue) {
                snprintf(value, (size_t)maxvalue, "%s", eq + 1);
                *vallen = (int)strlen(value);
                found = 1;
            }
        }
        fclose(f);
    }
    return found ? 0 : 1;
}

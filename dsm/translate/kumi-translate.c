/*
 * kumi-translate -- the DSM translator: reads LLVM IR, puts the
 * inline access checks of dsm/check.h before every load and store that may
 * touch the DSM region, a poll at every loop back-edge, and routes memory
 * intrinsics, atomics and wide accesses through the protocol; then
 * optionally runs the O2 pipeline and writes IR, bitcode or an object.
 * With --openmp, the OpenMP pass (omp.c) first moves what an
 * OpenMP program shares into the DSM, so the checks then cover it.
 *
 *   kumi-translate IN.{bc,ll} -o OUT.{o,bc,ll,s} [-O0..-O3] [--stats] [--no-warn]
 *                  [--no-version] [--no-gate] [--openmp]
 *
 * Written against the LLVM-C API of LLVM 14 (typed pointers). This file is
 * the driver; translate.h lists the other parts. See README.md next to
 * this file for what is checked, skipped, batched, and the limits.
 */
#include <llvm-c/Analysis.h>
#include <llvm-c/BitReader.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm-c/IRReader.h>
#include <llvm-c/Target.h>
#include <llvm-c/TargetMachine.h>
#include <llvm-c/Transforms/PassBuilder.h>
#include <llvm/Config/llvm-config.h>   /* LLVM_VERSION_STRING (plain C) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "omp.h"
#include "translate.h"

static void run_pipeline(struct kumi_tr *kt, LLVMTargetMachineRef tm, int olevel)
{
    char                      pipe[32];
    LLVMPassBuilderOptionsRef po = LLVMCreatePassBuilderOptions();
    snprintf(pipe, sizeof pipe, "default<O%d>", olevel);
    LLVMPassBuilderOptionsSetLoopVectorization(po, olevel >= 2);
    LLVMPassBuilderOptionsSetSLPVectorization(po, olevel >= 2);
    LLVMPassBuilderOptionsSetLoopUnrolling(po, 1);
    LLVMErrorRef e = LLVMRunPasses(kt->mod, pipe, tm, po);
    if (e) kumi_tr_die("optimization", LLVMGetErrorMessage(e));
    LLVMDisposePassBuilderOptions(po);
}

static const char *suffix(const char *p)
{
    const char *d = strrchr(p, '.');
    return d ? d : "";
}

static void usage(int rc)
{
    fprintf(rc ? stderr : stdout,
            "usage: kumi-translate IN.{bc,ll} -o OUT.{o,bc,ll,s} [-O0|-O1|-O2|-O3] [--stats] [--no-warn] [--no-version] [--no-gate]\n"
            "                      [--openmp]\n"
            "       kumi-translate --help | --version\n"
            "Inserts kumi's DSM access checks (dsm/check.h) into LLVM IR; with --openmp, first moves what\n"
            "an OpenMP program (clang-14 -fopenmp) shares into the DSM; see dsm/translate/README.md.\n");
    exit(rc);
}

int main(int argc, char **argv)
{
    struct kumi_tr kt = {.opts = {.warn = 1, .version = 1, .gate = 1}};
    const char    *in = NULL, *out = NULL;
    int            olevel = 0, stats = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (strcmp(a, "-o") == 0 && i + 1 < argc) out = argv[++i];
        else if (kumi_tr_starts(a, "-O")) olevel = a[2] == '0' ? 0 : a[2] == '1' ? 1 : a[2] == '3' ? 3 : 2;
        else if (strcmp(a, "--stats") == 0) stats = 1;
        else if (strcmp(a, "--no-warn") == 0) kt.opts.warn = 0;
        else if (strcmp(a, "--no-version") == 0) kt.opts.version = 0;
        else if (strcmp(a, "--no-gate") == 0) kt.opts.gate = 0;
        else if (strcmp(a, "--openmp") == 0) kt.opts.openmp = 1;
        else if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0) usage(0);
        else if (strcmp(a, "--version") == 0) {
            printf("kumi-translate (kumi) %d.%d.%d, LLVM %s\n", KUMI_VERSION_MAJOR, KUMI_VERSION_MINOR,
                   KUMI_VERSION_PATCH, LLVM_VERSION_STRING);
            return 0;
        }
        else if (a[0] == '-' && a[1]) { fprintf(stderr, "kumi-translate: unknown option %s\n", a); usage(2); }
        else if (in == NULL) in = a;
        else usage(2);
    }
    if (in == NULL || out == NULL) usage(2);

    char                *msg = NULL;
    LLVMMemoryBufferRef  buf;
    kt.ctx = LLVMContextCreate();
    if (strcmp(in, "-") == 0 ? LLVMCreateMemoryBufferWithSTDIN(&buf, &msg)
                             : LLVMCreateMemoryBufferWithContentsOfFile(in, &buf, &msg))
        kumi_tr_die(in, msg);
    if (LLVMParseIRInContext(kt.ctx, buf, &kt.mod, &msg))
        kumi_tr_die(in, msg);

    LLVMInitializeNativeTarget();
    LLVMInitializeNativeAsmPrinter();
    LLVMInitializeNativeAsmParser();   /* module asm (the OpenMP pass's NOBITS section) */
    char *triple = NULL;
    if (LLVMGetTarget(kt.mod)[0] == 0) {
        triple = LLVMGetDefaultTargetTriple();
        LLVMSetTarget(kt.mod, triple);
    } else {
        triple = strdup(LLVMGetTarget(kt.mod));
    }
    LLVMTargetRef target;
    if (LLVMGetTargetFromTriple(triple, &target, &msg))
        kumi_tr_die(triple, msg);
    LLVMTargetMachineRef tm = LLVMCreateTargetMachine(
        target, triple, "", "", olevel ? LLVMCodeGenLevelDefault : LLVMCodeGenLevelNone,
        LLVMRelocPIC, LLVMCodeModelDefault);
    if (LLVMGetDataLayoutStr(kt.mod)[0] == 0) {
        LLVMTargetDataRef d = LLVMCreateTargetDataLayout(tm);
        char             *s = LLVMCopyStringRepOfTargetData(d);
        LLVMSetDataLayout(kt.mod, s);
        LLVMDisposeMessage(s);
        LLVMDisposeTargetData(d);
    }
    kt.td = LLVMCreateTargetData(LLVMGetDataLayoutStr(kt.mod));

    /* With -O1..3 the program is optimized first (inlining, vectorization,
     * unrolling as by plain clang -O2), then instrumented, then optimized
     * again: the checks go on the accesses that remain, vector accesses get
     * the lane-wise tests, and the checks do not keep the loop vectorizer
     * from its work (README, "Optimizations") */
    if (olevel)
        run_pipeline(&kt, tm, olevel);
    /* the OpenMP pass: after the first pipeline (the escape analysis of
     * allocas sees the optimized code, as the checks do), before the
     * checks, so what it moved into the DSM gets checked */
    if (kt.opts.openmp) {
#ifdef KUMI_TR_HAVE_OMP
        struct kumi_tr_omp_opts oo = {.warn = kt.opts.warn, .stats = stats, .name = in};
        if (kumi_tr_omp_pass(kt.mod, &oo) != 0)
            exit(1);   /* (the pass printed why) */
#else
        kumi_tr_die("--openmp", "this kumi-translate was built without the OpenMP pass (dsm/translate/omp.c)");
#endif
    }
    /* the gate stays on with --openmp: the start-up makes the region
     * before main, but a job of one PE keeps kumi_dsm_g.size at 0
     * (KUMI_DSM_SOLO), so its functions run their unchecked copies */
    kumi_tr_context_init(&kt);   /* after: the pipeline drops unused declarations */
    for (LLVMValueRef f = LLVMGetFirstFunction(kt.mod); f; f = LLVMGetNextFunction(f))
        kumi_tr_function(&kt, f);
    kumi_tr_gate_finish(&kt);

    if (LLVMVerifyModule(kt.mod, LLVMReturnStatusAction, &msg))
        kumi_tr_die("the translated module does not verify (a translator bug)", msg);
    LLVMDisposeMessage(msg);

    if (olevel)
        run_pipeline(&kt, tm, olevel);

    const char *sx = suffix(out);
    if (strcmp(sx, ".ll") == 0) {
        if (LLVMPrintModuleToFile(kt.mod, out, &msg)) kumi_tr_die(out, msg);
    } else if (strcmp(sx, ".bc") == 0) {
        if (LLVMWriteBitcodeToFile(kt.mod, out)) kumi_tr_die(out, "cannot write bitcode");
    } else {
        if (LLVMTargetMachineEmitToFile(tm, kt.mod, (char *)out,
                                        strcmp(sx, ".s") == 0 ? LLVMAssemblyFile : LLVMObjectFile, &msg))
            kumi_tr_die(out, msg);
    }
    const struct kumi_tr_stats *st = &kt.st;
    if (stats)
        fprintf(stderr,
                "kumi-translate: %s: loads %lu stores %lu atomics %lu memops %lu | checked loads %lu "
                "stores %lu | private %lu batched %lu elided %lu wide %lu rmw %lu grouped %lu | polls %lu versioned loops %lu "
                "gated functions %lu (switches %lu) warnings %lu\n",
                in, st->loads, st->stores, st->atomics, st->memops, st->checked_loads, st->checked_stores,
                st->private_, st->batched, st->elided, st->wide, st->rmw, st->grouped, st->polls, st->versioned,
                st->gated, st->gate_switches, st->warnings);
    kumi_tr_context_free(&kt);
    LLVMDisposeTargetData(kt.td);
    LLVMDisposeTargetMachine(tm);
    LLVMDisposeModule(kt.mod);
    LLVMContextDispose(kt.ctx);
    LLVMDisposeMessage(triple);
    return 0;
}

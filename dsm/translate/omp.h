/*
 * omp.h -- kumi-translate --openmp: the pass that makes a module compiled
 * by clang-14 -fopenmp share its data through kumi's DSM (the
 * runtime side is bindings/openmp/, its ABI in bindings/openmp/omp_int.h).
 * The driver runs it after the first -O pipeline and before the access
 * checks, so what it moves into the DSM gets checked. Files: omp.c (the
 * order, names, the DSM stack, renames), omp_globals.c (globals),
 * omp_pass.h (what they share). IR tests: tests/translate/omp_*.ll,
 * omp_check_ir.sh, omp.cmake; end to end: tests/translate/omp_e2e.c.
 *
 * Globals. Every mutable global the module defines (not thread_local,
 * not llvm.*, kumi_*, __kmpc_*, not the .gomp_critical_user_* lock words,
 * not one with a section of its own: warned, left per PE), and every
 * constant one whose initializer points at such a global, moves:
 *  - initialized ones get section kumi_omp_data (constants lose
 *    "constant"); zero ones are defined by module asm in a NOBITS section
 *    kumi_omp_bss (LLVM puts every global with an explicit section into
 *    PROGBITS) and become declarations in the IR; each module ends its
 *    part of either section with one byte, so a pointer one past a
 *    global's end still lies in its template range;
 *  - these copies are templates: every instruction operand that refers
 *    to one (directly or inside a constant expression, vector or
 *    aggregate; a phi's operand at the end of the predecessor) becomes
 *    inttoptr(ptrtoint(&G) + kumi_omp_{data,bss}_delta) (loads marked
 *    !invariant.load; ptrtoint/inttoptr and not a GEP, so the optimizer
 *    takes G's address as escaped and the live copy as another object),
 *    once per function in its entry block (loop-invariant for the loop
 *    versions of the checks);
 *  - a declared global (maybe another module's moved one) gets the delta
 *    of the template range [kumi_omp_{data,bss}_lo, +_size) it lies in, or
 *    none; libc's stdin/stdout/stderr, environ, opt*, ... and names with
 *    "__" or "_X" are left as they are;
 *  - each pointer-sized slot of a moved initializer that points at a
 *    moved global is listed (its template address) in section
 *    kumi_omp_fixups, an array of void ** the start-up applies.
 *
 * Locals. An alloca another PE may reach -- its address (through GEPs,
 * casts, phis, selects) stored as a value, returned, turned into an
 * integer, passed to a call -- is replaced by kumi_omp_stack_push(size,
 * align) on this PE's DSM stack, with kumi_omp_stack_mark() at the entry
 * and kumi_omp_stack_release(mark) before every ret; a VLA's
 * llvm.stacksave takes a mark too, released at its llvm.stackrestore.
 * Calls that do not count: intrinsics (va_list stays on the stack), byval
 * arguments, an argument the callee does not capture (nocapture; LLVM's library
 * attributes are inferred first, so gettimeofday(&tv) keeps tv private),
 * the loop-bound pointers of __kmpc_for_static_init_* /
 * __kmpc_dispatch_next_*, the libc wrappers and the atomic libcalls (they
 * get private pointers and must not hand them to another PE). The allocas
 * left are private: the checks skip them.
 *
 * Reductions. A reduction's private copy (an entry-block alloca of
 * constant size) whose address only escapes by being stored, as itself,
 * into the list handed to __kmpc_reduce / __kmpc_reduce_nowait (a list
 * used for nothing else) stays a private alloca: the list gets a DSM stack
 * slot in its place, filled from the copy right before each reduce call
 * and copied back right after it (the runtime's tree combines through the
 * slots; thread 0's clang case-1 code reads the copy). Anything else (a
 * VLA section, an address that also escapes elsewhere, task reductions)
 * is an escaping local as above.
 *
 * Calls. malloc calloc realloc free aligned_alloc posix_memalign memalign
 * valloc strdup strndup become kumi_omp_<name>; the functions of
 * bindings/openmp/libc_wrap.def (glibc's __isoc99_ names map to theirs)
 * kumi_omp_libc_<name>; __atomic_{load,store,exchange,compare_exchange}
 * and their _1.._16 forms kumi_omp___atomic_<...>. The declaration is
 * renamed, so function pointers to them change too; a function the module
 * defines keeps its name, but a header's available_externally copy (glibc's
 * inline atoi) is dropped for the wrapper.
 *
 * byval. A byval argument is a copy the call makes with loads no check
 * sees: from memory that may be DSM (anything but a private alloca or a
 * global left in place) it is first copied by llvm.memcpy (which the
 * checks acquire) into a private temporary.
 *
 * copyin. A thread_local global's address given to __kmpc_fork_call
 * (directly, or through clang's thread wrapper at -O0) is replaced by a
 * DSM stack copy of its bytes.
 *
 * copyprivate. A thread_local global's address stored into the list of a
 * __kmpc_copyprivate (in the call's block) is replaced by a DSM stack slot
 * filled from the variable before the call and copied back after it (the
 * other threads read the single thread's slot, not their own copy at the
 * same address).
 *
 * Limits: the program's C files must all be translated with --openmp and
 * linked into the executable (a shared library's templates are never
 * copied, and untranslated code sees the templates); a thread_local
 * initializer that points at a moved global keeps the template's address
 * (warned); longjmp out of a function leaves its DSM stack until an
 * enclosing function returns; a constant expression of a kind the pass
 * cannot rebuild (extractvalue, fcmp, ...) over a moved global is an
 * error.
 */
#ifndef KUMI_TR_OMP_H
#define KUMI_TR_OMP_H

#include <llvm-c/Core.h>

struct kumi_tr_omp_opts {
    int         warn;    /* print warnings (a global left per PE, ...) */
    int         stats;   /* print what the pass did on stderr          */
    const char *name;    /* the input, for messages (may be NULL)      */
};

/* Rewrites m in place. Returns 0, or -1 after printing why on stderr
 * ("kumi-translate: IN: --openmp: ..."). */
int kumi_tr_omp_pass(LLVMModuleRef m, const struct kumi_tr_omp_opts *o);

#endif /* KUMI_TR_OMP_H */

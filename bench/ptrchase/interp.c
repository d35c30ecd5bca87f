/*
 * interp.c -- a small stack-machine bytecode interpreter: the kind of
 * pointer-heavy code whose cost under kumicc bench/ptrchase/ measures
 * (README.md). No kumi calls: the program never touches the DSM.
 *
 * The VM: a switch-dispatch loop over 32-bit words, values on a value
 * stack, call frames on a frame stack, arrays as heap objects reached
 * through a table of object pointers (each array access is vm->objs[h]->
 * data[i]). It runs four bytecode programs -- recursive fib, a sieve, an
 * insertion sort of LCG numbers, and sums over a list of cons cells --
 * and checks each result against the same computation in plain C.
 *
 *   interp [SCALE]     SCALE (default 10) repeats the work
 * Prints the results, "time S" (the timed part) and "OK", or the first
 * mismatch on stderr and exits 1.
 */
#define _POSIX_C_SOURCE 200809L
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define PTRCHASE_PROG "interp"
#include "ptrchase.h"

typedef int64_t val;

enum op {
    OP_HALT, OP_PUSH, OP_POP, OP_DUP, OP_LOAD, OP_STORE, OP_INC,
    OP_ADD, OP_SUB, OP_MUL, OP_MOD, OP_AND, OP_LT, OP_EQ,
    OP_JMP, OP_JZ, OP_JNZ, OP_CALL, OP_ENTER, OP_RET,
    OP_NEWARR, OP_ALOAD, OP_ASTORE, OP_ALEN, OP_NOP
};

struct obj {
    int64_t len;
    val *data;
};

struct frame {
    const int32_t *ret;
    val *bp;
};

struct vm {
    const int32_t *code;
    val *stack;
    size_t stack_cap;
    struct frame *frames;
    size_t frame_cap;
    struct obj **objs;
    size_t nobj, obj_cap;
    uint64_t steps;
};

static void trap(const char *what, long long a)
{
    fprintf(stderr, "interp: vm trap: %s (%lld)\n", what, a);
    exit(1);
}

static val vm_newarr(struct vm *vm, val len)
{
    if (len < 0 || len > (1 << 26))
        trap("bad array length", len);
    if (vm->nobj == vm->obj_cap) {
        vm->obj_cap = vm->obj_cap ? 2 * vm->obj_cap : 1024;
        vm->objs = realloc(vm->objs, vm->obj_cap * sizeof *vm->objs);
        if (!vm->objs)
            trap("out of memory", (long long)vm->obj_cap);
    }
    struct obj *o = xmalloc(sizeof *o);
    o->len = len;
    o->data = calloc((size_t)len + 1, sizeof *o->data);
    if (!o->data)
        trap("out of memory", len);
    vm->objs[vm->nobj] = o;
    return (val)vm->nobj++;
}

static struct obj *vm_obj(struct vm *vm, val h, val i)
{
    if ((uint64_t)h >= vm->nobj)
        trap("bad handle", h);
    struct obj *o = vm->objs[h];
    if ((uint64_t)i >= (uint64_t)o->len)
        trap("index out of range", i);
    return o;
}

static void vm_free_objs(struct vm *vm)
{
    for (size_t i = 0; i < vm->nobj; i++) {
        free(vm->objs[i]->data);
        free(vm->objs[i]);
    }
    vm->nobj = 0;
}

/* Runs the function at code[entry] with args; returns its result. */
static val vm_call(struct vm *vm, int32_t entry, const val *args, int nargs)
{
    static const int32_t halt = OP_HALT;
    val *sp = vm->stack;
    struct frame *fp = vm->frames;
    struct frame *fend = vm->frames + vm->frame_cap - 1;
    val *send = vm->stack + vm->stack_cap - 64;
    for (int i = 0; i < nargs; i++)
        *sp++ = args[i];
    fp->ret = &halt;
    fp->bp = sp;
    fp++;
    val *bp = vm->stack;
    const int32_t *pc = vm->code + entry;
    uint64_t steps = 0;
    val a, b;
    for (;;) {
        steps++;
        switch ((enum op)*pc++) {
        case OP_HALT:
            vm->steps += steps;
            return sp[-1];
        case OP_NOP:
            break;
        case OP_PUSH:
            *sp++ = *pc++;
            break;
        case OP_POP:
            sp--;
            break;
        case OP_DUP:
            sp[0] = sp[-1];
            sp++;
            break;
        case OP_LOAD:
            *sp++ = bp[*pc++];
            break;
        case OP_STORE:
            bp[*pc++] = *--sp;
            break;
        case OP_INC:
            bp[pc[0]] = (val)((uint64_t)bp[pc[0]] + (uint64_t)(val)pc[1]);
            pc += 2;
            break;
        case OP_ADD:
            sp--;
            sp[-1] = (val)((uint64_t)sp[-1] + (uint64_t)sp[0]);
            break;
        case OP_SUB:
            sp--;
            sp[-1] = (val)((uint64_t)sp[-1] - (uint64_t)sp[0]);
            break;
        case OP_MUL:
            sp--;
            sp[-1] = (val)((uint64_t)sp[-1] * (uint64_t)sp[0]);
            break;
        case OP_MOD:
            sp--;
            if (sp[0] <= 0)
                trap("mod by non-positive", sp[0]);
            sp[-1] = sp[-1] % sp[0];
            break;
        case OP_AND:
            sp--;
            sp[-1] &= sp[0];
            break;
        case OP_LT:
            sp--;
            sp[-1] = sp[-1] < sp[0];
            break;
        case OP_EQ:
            sp--;
            sp[-1] = sp[-1] == sp[0];
            break;
        case OP_JMP:
            pc = vm->code + *pc;
            break;
        case OP_JZ:
            pc = *--sp == 0 ? vm->code + *pc : pc + 1;
            break;
        case OP_JNZ:
            pc = *--sp != 0 ? vm->code + *pc : pc + 1;
            break;
        case OP_CALL:       /* CALL target nargs */
            if (fp == fend)
                trap("call depth", (long long)(fp - vm->frames));
            fp->ret = pc + 2;
            fp->bp = bp;
            fp++;
            bp = sp - pc[1];
            pc = vm->code + pc[0];
            break;
        case OP_ENTER:      /* ENTER nlocals (beyond the arguments) */
            if (sp + *pc >= send)
                trap("stack overflow", (long long)(sp - vm->stack));
            for (int32_t i = 0; i < *pc; i++)
                *sp++ = 0;
            pc++;
            break;
        case OP_RET:
            a = sp[-1];
            sp = bp;
            fp--;
            pc = fp->ret;
            bp = fp->bp;
            *sp++ = a;
            break;
        case OP_NEWARR:
            sp[-1] = vm_newarr(vm, sp[-1]);
            break;
        case OP_ALOAD:      /* h i -> h[i] */
            sp--;
            sp[-1] = vm_obj(vm, sp[-1], sp[0])->data[sp[0]];
            break;
        case OP_ASTORE:     /* h i v -> */
            sp -= 3;
            vm_obj(vm, sp[0], sp[1])->data[sp[1]] = sp[2];
            break;
        case OP_ALEN:
            a = sp[-1];
            if ((uint64_t)a >= vm->nobj)
                trap("bad handle", a);
            sp[-1] = vm->objs[a]->len;
            break;
        default:
            b = pc[-1];
            trap("bad opcode", b);
        }
    }
}

/* ------------------------------------------------------------ assembler */
struct fixup {
    size_t at;
    int label;
};

struct as {
    int32_t *code;
    size_t n, cap;
    long labels[64];
    int nlabels;
    struct fixup fix[256];
    int nfix;
};

static void emit(struct as *a, int32_t w)
{
    if (a->n == a->cap) {
        a->cap = a->cap ? 2 * a->cap : 256;
        a->code = realloc(a->code, a->cap * sizeof *a->code);
        if (!a->code)
            trap("out of memory", (long long)a->cap);
    }
    a->code[a->n++] = w;
}

static void emit2(struct as *a, int32_t op, int32_t x) { emit(a, op); emit(a, x); }

static int label(struct as *a)
{
    if (a->nlabels == 64)
        trap("too many labels", 64);
    a->labels[a->nlabels] = -1;
    return a->nlabels++;
}

static void place(struct as *a, int l) { a->labels[l] = (long)a->n; }

static void jump(struct as *a, int32_t op, int l)
{
    emit(a, op);
    if (a->nfix == 256)
        trap("too many fixups", 256);
    a->fix[a->nfix++] = (struct fixup){ a->n, l };
    emit(a, 0);
}

static void call(struct as *a, int32_t fn, int32_t nargs) { emit(a, OP_CALL); emit(a, fn); emit(a, nargs); }

static void resolve(struct as *a)
{
    for (int i = 0; i < a->nfix; i++) {
        if (a->labels[a->fix[i].label] < 0)
            trap("label never placed", a->fix[i].label);
        a->code[a->fix[i].at] = (int32_t)a->labels[a->fix[i].label];
    }
    a->nfix = 0;
}

/* fib(n): locals 0 = n */
static int32_t gen_fib(struct as *a)
{
    int32_t fn = (int32_t)a->n;
    int rec = label(a);
    emit2(a, OP_ENTER, 0);
    emit2(a, OP_LOAD, 0); emit2(a, OP_PUSH, 2); emit(a, OP_LT); jump(a, OP_JZ, rec);
    emit2(a, OP_LOAD, 0); emit(a, OP_RET);
    place(a, rec);
    emit2(a, OP_LOAD, 0); emit2(a, OP_PUSH, 1); emit(a, OP_SUB); call(a, fn, 1);
    emit2(a, OP_LOAD, 0); emit2(a, OP_PUSH, 2); emit(a, OP_SUB); call(a, fn, 1);
    emit(a, OP_ADD); emit(a, OP_RET);
    resolve(a);
    return fn;
}

/* sieve(n): the number of primes <= n. locals 0 n, 1 arr, 2 i, 3 j, 4 count */
static int32_t gen_sieve(struct as *a)
{
    int32_t fn = (int32_t)a->n;
    int outer = label(a), next = label(a), inner = label(a), count = label(a), cl = label(a),
        cskip = label(a), done = label(a);
    emit2(a, OP_ENTER, 4);
    emit2(a, OP_LOAD, 0); emit2(a, OP_PUSH, 1); emit(a, OP_ADD); emit(a, OP_NEWARR); emit2(a, OP_STORE, 1);
    emit2(a, OP_PUSH, 2); emit2(a, OP_STORE, 2);
    place(a, outer);        /* while (i*i <= n) */
    emit2(a, OP_LOAD, 0); emit2(a, OP_LOAD, 2); emit2(a, OP_LOAD, 2); emit(a, OP_MUL); emit(a, OP_LT);
    jump(a, OP_JNZ, count);
    emit2(a, OP_LOAD, 1); emit2(a, OP_LOAD, 2); emit(a, OP_ALOAD); jump(a, OP_JNZ, next);
    emit2(a, OP_LOAD, 2); emit2(a, OP_LOAD, 2); emit(a, OP_MUL); emit2(a, OP_STORE, 3);
    place(a, inner);        /* for (j = i*i; j <= n; j += i) arr[j] = 1 */
    emit2(a, OP_LOAD, 0); emit2(a, OP_LOAD, 3); emit(a, OP_LT); jump(a, OP_JNZ, next);
    emit2(a, OP_LOAD, 1); emit2(a, OP_LOAD, 3); emit2(a, OP_PUSH, 1); emit(a, OP_ASTORE);
    emit2(a, OP_LOAD, 3); emit2(a, OP_LOAD, 2); emit(a, OP_ADD); emit2(a, OP_STORE, 3);
    jump(a, OP_JMP, inner);
    place(a, next);
    emit(a, OP_INC); emit(a, 2); emit(a, 1);
    jump(a, OP_JMP, outer);
    place(a, count);        /* for (i = 2; i <= n; i++) count += !arr[i] */
    emit2(a, OP_PUSH, 2); emit2(a, OP_STORE, 2);
    place(a, cl);
    emit2(a, OP_LOAD, 0); emit2(a, OP_LOAD, 2); emit(a, OP_LT); jump(a, OP_JNZ, done);
    emit2(a, OP_LOAD, 1); emit2(a, OP_LOAD, 2); emit(a, OP_ALOAD); jump(a, OP_JNZ, cskip);
    emit(a, OP_INC); emit(a, 4); emit(a, 1);
    place(a, cskip);
    emit(a, OP_INC); emit(a, 2); emit(a, 1);
    jump(a, OP_JMP, cl);
    place(a, done);
    emit2(a, OP_LOAD, 4); emit(a, OP_RET);
    resolve(a);
    return fn;
}

/* sortsum(n, seed): fill an array with an LCG, insertion-sort it, return
 * sum of a[i] * (i + 1). locals 0 n, 1 seed, 2 arr, 3 i, 4 j, 5 x, 6 sum */
static int32_t gen_sort(struct as *a)
{
    int32_t fn = (int32_t)a->n;
    int fill = label(a), sort = label(a), sl = label(a), il = label(a), ins = label(a),
        sum = label(a), su = label(a), done = label(a);
    emit2(a, OP_ENTER, 5);
    emit2(a, OP_LOAD, 0); emit(a, OP_NEWARR); emit2(a, OP_STORE, 2);
    place(a, fill);         /* for (i = 0; i < n; i++) arr[i] = seed = lcg(seed) */
    emit2(a, OP_LOAD, 3); emit2(a, OP_LOAD, 0); emit(a, OP_LT); jump(a, OP_JZ, sort);
    emit2(a, OP_LOAD, 1); emit2(a, OP_PUSH, 1103515245); emit(a, OP_MUL); emit2(a, OP_PUSH, 12345);
    emit(a, OP_ADD); emit2(a, OP_PUSH, 0x7fffffff); emit(a, OP_AND); emit2(a, OP_STORE, 1);
    emit2(a, OP_LOAD, 2); emit2(a, OP_LOAD, 3); emit2(a, OP_LOAD, 1); emit(a, OP_ASTORE);
    emit(a, OP_INC); emit(a, 3); emit(a, 1);
    jump(a, OP_JMP, fill);
    place(a, sort);         /* for (i = 1; i < n; i++) { x = a[i]; j = i; ... } */
    emit2(a, OP_PUSH, 1); emit2(a, OP_STORE, 3);
    place(a, sl);
    emit2(a, OP_LOAD, 3); emit2(a, OP_LOAD, 0); emit(a, OP_LT); jump(a, OP_JZ, sum);
    emit2(a, OP_LOAD, 2); emit2(a, OP_LOAD, 3); emit(a, OP_ALOAD); emit2(a, OP_STORE, 5);
    emit2(a, OP_LOAD, 3); emit2(a, OP_STORE, 4);
    place(a, il);           /* while (j > 0 && a[j-1] > x) { a[j] = a[j-1]; j--; } */
    emit2(a, OP_PUSH, 0); emit2(a, OP_LOAD, 4); emit(a, OP_LT); jump(a, OP_JZ, ins);
    emit2(a, OP_LOAD, 5); emit2(a, OP_LOAD, 2); emit2(a, OP_LOAD, 4); emit2(a, OP_PUSH, 1); emit(a, OP_SUB);
    emit(a, OP_ALOAD); emit(a, OP_LT); jump(a, OP_JZ, ins);
    emit2(a, OP_LOAD, 2); emit2(a, OP_LOAD, 4);
    emit2(a, OP_LOAD, 2); emit2(a, OP_LOAD, 4); emit2(a, OP_PUSH, 1); emit(a, OP_SUB); emit(a, OP_ALOAD);
    emit(a, OP_ASTORE);
    emit(a, OP_INC); emit(a, 4); emit(a, -1);
    jump(a, OP_JMP, il);
    place(a, ins);
    emit2(a, OP_LOAD, 2); emit2(a, OP_LOAD, 4); emit2(a, OP_LOAD, 5); emit(a, OP_ASTORE);
    emit(a, OP_INC); emit(a, 3); emit(a, 1);
    jump(a, OP_JMP, sl);
    place(a, sum);
    emit2(a, OP_PUSH, 0); emit2(a, OP_STORE, 3);
    place(a, su);
    emit2(a, OP_LOAD, 3); emit2(a, OP_LOAD, 0); emit(a, OP_LT); jump(a, OP_JZ, done);
    emit2(a, OP_LOAD, 6);
    emit2(a, OP_LOAD, 2); emit2(a, OP_LOAD, 3); emit(a, OP_ALOAD);
    emit2(a, OP_LOAD, 3); emit2(a, OP_PUSH, 1); emit(a, OP_ADD); emit(a, OP_MUL);
    emit(a, OP_ADD); emit2(a, OP_STORE, 6);
    emit(a, OP_INC); emit(a, 3); emit(a, 1);
    jump(a, OP_JMP, su);
    place(a, done);
    emit2(a, OP_LOAD, 6); emit(a, OP_RET);
    resolve(a);
    return fn;
}

/* listsum(n, rounds): build a list of n cons cells [value, next] (next -1
 * ends it) with value i*7 % 1000, then walk it `rounds` times summing the
 * values times the round number. locals 0 n, 1 rounds, 2 head, 3 i, 4 c,
 * 5 r, 6 sum */
static int32_t gen_list(struct as *a)
{
    int32_t fn = (int32_t)a->n;
    int build = label(a), walk = label(a), wl = label(a), cl = label(a), cdone = label(a),
        done = label(a);
    emit2(a, OP_ENTER, 5);
    emit2(a, OP_PUSH, -1); emit2(a, OP_STORE, 2);
    place(a, build);        /* for (i = 0; i < n; i++) head = cons(i*7 % 1000, head) */
    emit2(a, OP_LOAD, 3); emit2(a, OP_LOAD, 0); emit(a, OP_LT); jump(a, OP_JZ, walk);
    emit2(a, OP_PUSH, 2); emit(a, OP_NEWARR); emit2(a, OP_STORE, 4);
    emit2(a, OP_LOAD, 4); emit2(a, OP_PUSH, 0);
    emit2(a, OP_LOAD, 3); emit2(a, OP_PUSH, 7); emit(a, OP_MUL); emit2(a, OP_PUSH, 1000); emit(a, OP_MOD);
    emit(a, OP_ASTORE);
    emit2(a, OP_LOAD, 4); emit2(a, OP_PUSH, 1); emit2(a, OP_LOAD, 2); emit(a, OP_ASTORE);
    emit2(a, OP_LOAD, 4); emit2(a, OP_STORE, 2);
    emit(a, OP_INC); emit(a, 3); emit(a, 1);
    jump(a, OP_JMP, build);
    place(a, walk);         /* for (r = 1; r <= rounds; r++) for (c = head; c != -1; c = c[1]) */
    emit2(a, OP_PUSH, 1); emit2(a, OP_STORE, 5);
    place(a, wl);
    emit2(a, OP_LOAD, 1); emit2(a, OP_LOAD, 5); emit(a, OP_LT); jump(a, OP_JNZ, done);
    emit2(a, OP_LOAD, 2); emit2(a, OP_STORE, 4);
    place(a, cl);
    emit2(a, OP_LOAD, 4); emit2(a, OP_PUSH, -1); emit(a, OP_EQ); jump(a, OP_JNZ, cdone);
    emit2(a, OP_LOAD, 6);
    emit2(a, OP_LOAD, 4); emit2(a, OP_PUSH, 0); emit(a, OP_ALOAD); emit2(a, OP_LOAD, 5); emit(a, OP_MUL);
    emit(a, OP_ADD); emit2(a, OP_STORE, 6);
    emit2(a, OP_LOAD, 4); emit2(a, OP_PUSH, 1); emit(a, OP_ALOAD); emit2(a, OP_STORE, 4);
    jump(a, OP_JMP, cl);
    place(a, cdone);
    emit(a, OP_INC); emit(a, 5); emit(a, 1);
    jump(a, OP_JMP, wl);
    place(a, done);
    emit2(a, OP_LOAD, 6); emit(a, OP_RET);
    resolve(a);
    return fn;
}

/* ---------------------------------------------- the same in plain C */
static val ref_fib(val n) { return n < 2 ? n : ref_fib(n - 1) + ref_fib(n - 2); }

static val ref_sieve(val n)
{
    char *c = calloc((size_t)n + 1, 1);
    val k = 0;
    if (!c)
        trap("out of memory", n);
    for (val i = 2; i * i <= n; i++)
        if (!c[i])
            for (val j = i * i; j <= n; j += i)
                c[j] = 1;
    for (val i = 2; i <= n; i++)
        k += !c[i];
    free(c);
    return k;
}

static int cmp_val(const void *x, const void *y)
{
    val a = *(const val *)x, b = *(const val *)y;
    return (a > b) - (a < b);
}

static val ref_sort(val n, val seed)
{
    val *v = xmalloc((size_t)n * sizeof *v);
    uint64_t s = 0;
    for (val i = 0; i < n; i++)
        v[i] = seed = (val)(((uint64_t)seed * 1103515245u + 12345u) & 0x7fffffff);
    qsort(v, (size_t)n, sizeof *v, cmp_val);
    for (val i = 0; i < n; i++)
        s += (uint64_t)v[i] * (uint64_t)(i + 1);
    free(v);
    return (val)s;
}

static val ref_list(val n, val rounds)
{
    val one = 0;
    for (val i = 0; i < n; i++)
        one += i * 7 % 1000;
    return one * (rounds * (rounds + 1) / 2);
}

int main(int argc, char **argv)
{
    int scale = argc > 1 ? atoi(argv[1]) : 10;
    if (scale < 1 || scale > 1000) {
        fprintf(stderr, "usage: interp [SCALE 1..1000]\n");
        return 2;
    }
    struct as as;
    memset(&as, 0, sizeof as);
    emit(&as, OP_NOP);      /* no function at 0 */
    int32_t fib = gen_fib(&as), sieve = gen_sieve(&as), sort = gen_sort(&as), list = gen_list(&as);

    struct vm vm;
    memset(&vm, 0, sizeof vm);
    vm.code = as.code;
    vm.stack_cap = 1 << 16;
    vm.stack = xmalloc(vm.stack_cap * sizeof *vm.stack);
    vm.frame_cap = 1 << 12;
    vm.frames = xmalloc(vm.frame_cap * sizeof *vm.frames);

    const val fib_n = 24, sieve_n = 300000, sort_n = 1200, list_n = 2000, list_rounds = 60;
    val r_fib = 0, r_sieve = 0, r_sort = 0, r_list = 0;
    double t0 = now();
    for (int s = 0; s < scale; s++) {
        val args[2];
        args[0] = fib_n;
        r_fib += vm_call(&vm, fib, args, 1);
        args[0] = sieve_n;
        r_sieve += vm_call(&vm, sieve, args, 1);
        args[0] = sort_n;
        args[1] = 12345 + s;
        r_sort = (val)((uint64_t)r_sort + (uint64_t)vm_call(&vm, sort, args, 2));
        args[0] = list_n;
        args[1] = list_rounds;
        r_list += vm_call(&vm, list, args, 2);
        vm_free_objs(&vm);
    }
    double t1 = now();

    val e_fib = 0, e_sieve = 0, e_sort = 0, e_list = 0;
    for (int s = 0; s < scale; s++) {
        e_fib += ref_fib(fib_n);
        e_sieve += ref_sieve(sieve_n);
        e_sort = (val)((uint64_t)e_sort + (uint64_t)ref_sort(sort_n, 12345 + s));
        e_list += ref_list(list_n, list_rounds);
    }
    int bad = 0;
#define CHECK(name, got, want)                                                              \
    if ((got) != (want)) {                                                                  \
        fprintf(stderr, "interp: %s: got %" PRId64 ", want %" PRId64 "\n", name, got, want); \
        bad = 1;                                                                            \
    }
    CHECK("fib", r_fib, e_fib);
    CHECK("sieve", r_sieve, e_sieve);
    CHECK("sort", r_sort, e_sort);
    CHECK("list", r_list, e_list);
#undef CHECK
    printf("interp: fib %" PRId64 " sieve %" PRId64 " sort %" PRId64 " list %" PRId64
           " steps %" PRIu64 "\n", r_fib, r_sieve, r_sort, r_list, vm.steps);
    printf("time %.4f\n", t1 - t0);
    free(vm.objs);
    free(vm.frames);
    free(vm.stack);
    free(as.code);
    if (bad)
        return 1;
    printf("OK\n");
    return 0;
}

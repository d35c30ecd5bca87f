/*
 * invoke.c -- calls a parallel region's outlined function with its
 * arguments: microtask(&gtid, &btid, args[0], ..., args[argc-1]), for any
 * argc (what __kmpc_fork_call received as varargs). The x86-64 SysV
 * convention: the first four region arguments in rdx, rcx, r8, r9, the
 * rest on the stack, 16-byte aligned at the call; al = 0 (no vector
 * registers) as for a variadic callee.
 */
#include <stdint.h>

#include "omp_int.h"

#if !defined(__x86_64__)
#error "libkumi-omp: kumi_omp_invoke is written for x86-64"
#endif

/* kumi_omp_invoke (omp_int.h): args must hold at least 4 entries (unused
 * ones are loaded, not used) */

__asm__(".text\n"
        ".globl kumi_omp_invoke\n"
        ".hidden kumi_omp_invoke\n"
        ".type kumi_omp_invoke,@function\n"
        "kumi_omp_invoke:\n"
        "    pushq %rbp\n"
        "    movq %rsp, %rbp\n"
        "    pushq %rbx\n"
        "    pushq %r12\n"
        "    pushq %r13\n"
        "    pushq %r14\n"
        "    pushq %r15\n"
        "    movq %rdi, %rbx\n"      /* fn   */
        "    movq %rsi, %r12\n"      /* gtid */
        "    movq %rdx, %r13\n"      /* btid */
        "    movslq %ecx, %r14\n"    /* argc */
        "    movq %r8, %r15\n"       /* args */
        "    movq %r14, %rax\n"
        "    subq $4, %rax\n"        /* arguments on the stack */
        "    jle 2f\n"
        "    leaq (,%rax,8), %rcx\n"
        "    subq %rcx, %rsp\n"
        "    andq $-16, %rsp\n"
        "    xorl %ecx, %ecx\n"
        "1:  movq 32(%r15,%rcx,8), %rdx\n"
        "    movq %rdx, (%rsp,%rcx,8)\n"
        "    incq %rcx\n"
        "    cmpq %rax, %rcx\n"
        "    jl 1b\n"
        "    jmp 3f\n"
        "2:  andq $-16, %rsp\n"
        "3:  movq %r12, %rdi\n"
        "    movq %r13, %rsi\n"
        "    movq 0(%r15), %rdx\n"
        "    movq 8(%r15), %rcx\n"
        "    movq 16(%r15), %r8\n"
        "    movq 24(%r15), %r9\n"
        "    xorl %eax, %eax\n"
        "    call *%rbx\n"
        "    leaq -40(%rbp), %rsp\n"
        "    popq %r15\n"
        "    popq %r14\n"
        "    popq %r13\n"
        "    popq %r12\n"
        "    popq %rbx\n"
        "    popq %rbp\n"
        "    ret\n"
        ".size kumi_omp_invoke, .-kumi_omp_invoke\n");

/*
 * tlm_wrap_alloc.h - the allocator as the tests linked with
 * --wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free see it
 * (tests/tests.cmake): every allocation of the program goes through the
 * test's __wrap_ functions, which reach the C library's through __real_.
 */
#ifndef TLM_WRAP_ALLOC_H
#define TLM_WRAP_ALLOC_H

#include <stddef.h>

void *__real_malloc(size_t size);
void *__real_calloc(size_t n, size_t size);
void *__real_realloc(void *p, size_t size);
void __real_free(void *p);
void *__wrap_malloc(size_t size);
void *__wrap_calloc(size_t n, size_t size);
void *__wrap_realloc(void *p, size_t size);
void __wrap_free(void *p);

#endif

/* Internal to libtally-io: the helper across exec (exec.c), above region.h. */
#ifndef TALLY_LIB_IO_EXEC_H
#define TALLY_LIB_IO_EXEC_H

#include <limits.h>
#include <stddef.h>

#include "region.h"

/* Before an execve: the environment given to the new image, with the
 * helper's LD_PRELOAD and TALLY_IO_DIR put back when missing. OUT has room
 * for count(envp) + 3 pointers, BUF (io_env_room(envp) bytes, on the
 * caller's stack: no more than the entries need, so that a fork child
 * about to exec touches no new stack page) for the entries. */
size_t io_env_room(char *const envp[]);
char *const *io_child_env(char *const envp[], char **out, char *buf, size_t buflen);
size_t io_env_count(char *const envp[]);
void io_exec_begin(const char *path);
void io_exec_failed(void);
/* At the start: what a vfork child must not have to look up (dlsym and
 * dladdr may allocate). */
void io_exec_prepare(void);

#endif

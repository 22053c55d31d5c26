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
/* Before a fork: what the children will need at their exec (this
 * library's path, execve and execvpe), looked up once here rather than in
 * every child, where each page the lookup reads is a page fault. */
void io_exec_prepare(void);
/* Notes the exec in the region; true in a vfork child (whose note is a
 * region of its own, io_region_note_vfork_exec). */
bool io_exec_begin(const char *path);
void io_exec_failed(void);

#endif

#ifndef NESTORY_CSPAWN_H
#define NESTORY_CSPAWN_H
#include <spawn.h>

/// glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later), which its header declares only with _GNU_SOURCE:
/// the child closes every descriptor from `from` up before it runs the program.
int nestory_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from);

/// Linux's F_SETPIPE_SZ (a _GNU_SOURCE constant): asks the pipe `fd` belongs to to hold `bytes`; the size it now holds,
/// or -1 (errno set) when the kernel refuses (an unprivileged process may ask up to /proc/sys/fs/pipe-max-size).
int nestory_pipe_set_capacity(int fd, int bytes);

/// Linux's F_GETPIPE_SZ: how many bytes the pipe `fd` belongs to holds, or -1 (errno set).
int nestory_pipe_capacity(int fd);

#endif

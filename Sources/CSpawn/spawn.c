#define _GNU_SOURCE
#include <fcntl.h>
#include <spawn.h>
#include "CSpawn.h"

int nestory_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

int nestory_pipe_set_capacity(int fd, int bytes) {
    return fcntl(fd, F_SETPIPE_SZ, bytes);
}

int nestory_pipe_capacity(int fd) {
    return fcntl(fd, F_GETPIPE_SZ);
}

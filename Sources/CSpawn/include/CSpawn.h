#ifndef NESTORY_CSPAWN_H
#define NESTORY_CSPAWN_H
#include <spawn.h>

/// glibc's posix_spawn_file_actions_addclosefrom_np (2.34 and later), which its header declares only with _GNU_SOURCE:
/// the child closes every descriptor from `from` up before it runs the program.
int nestory_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from);

#endif

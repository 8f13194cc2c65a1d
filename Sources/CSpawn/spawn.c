#define _GNU_SOURCE
#include <spawn.h>
#include "CSpawn.h"

int nestory_spawn_add_closefrom(posix_spawn_file_actions_t *actions, int from) {
    return posix_spawn_file_actions_addclosefrom_np(actions, from);
}

// posix_spawn for the tool runner (src/processors/shared/spawn-process.ts). libuv starts a child with
// fork(), which copies the parent's page tables: its cost grows with the parent's resident memory (measured
// here: 2.5 CPU ms at 46 MB, 31 ms at 683 MB, with the event loop blocked all along). glibc's posix_spawn
// uses clone(CLONE_VM | CLONE_VFORK): nothing is copied, whatever the parent's size.
//
//   spawn(file, argv, envp, cwd, stdio) -> { pid, fds }
//     stdio: three numbers, -1 = /dev/null, -2 = a new pipe (its parent end is returned in fds, else -1),
//     n >= 0 = that descriptor of this process. The child gets a session of its own (setsid: a kill of its
//     process group reaches what it forks), every signal at its default and none blocked (libuv ignores
//     SIGPIPE in this process; a tool must not inherit that). Throws an Error whose code is the errno name.
//   watch(pid, callback) -> undefined: callback(exitCode, signalNumber) once the child has ended, from a
//     thread of its own blocked in waitpid(pid): libuv only ever waits for the pids it started.
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <node_api.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#define CHECK(call)                                                                                      \
  do {                                                                                                   \
    if ((call) != napi_ok) return NULL;                                                                  \
  } while (0)

static napi_value throw_errno(napi_env env, int error, const char* what) {
  napi_value message, code, err, number;
  char text[256];
  snprintf(text, sizeof text, "%s: %s", what, strerror(error));
  napi_create_string_utf8(env, text, NAPI_AUTO_LENGTH, &message);
  const char* name = error == ENOENT ? "ENOENT" : error == EACCES ? "EACCES" : error == ENOMEM ? "ENOMEM"
                     : error == EAGAIN ? "EAGAIN" : error == ENOTDIR ? "ENOTDIR" : error == EMFILE ? "EMFILE"
                     : "ESPAWN";
  napi_create_string_utf8(env, name, NAPI_AUTO_LENGTH, &code);
  napi_create_error(env, code, message, &err);
  napi_create_int32(env, -error, &number);
  napi_set_named_property(env, err, "errno", number);
  napi_throw(env, err);
  return NULL;
}

// A JS string as a new C string (caller frees).
static char* string_of(napi_env env, napi_value value) {
  size_t length;
  if (napi_get_value_string_utf8(env, value, NULL, 0, &length) != napi_ok) return NULL;
  char* text = malloc(length + 1);
  if (text == NULL) return NULL;
  napi_get_value_string_utf8(env, value, text, length + 1, &length);
  return text;
}

// A JS array of strings as a NULL-terminated C array (caller frees with free_strings).
static char** strings_of(napi_env env, napi_value array) {
  uint32_t count;
  if (napi_get_array_length(env, array, &count) != napi_ok) return NULL;
  char** list = calloc(count + 1, sizeof(char*));
  if (list == NULL) return NULL;
  for (uint32_t i = 0; i < count; i++) {
    napi_value item;
    napi_get_element(env, array, i, &item);
    list[i] = string_of(env, item);
  }
  return list;
}

static void free_strings(char** list) {
  if (list == NULL) return;
  for (char** item = list; *item != NULL; item++) free(*item);
  free(list);
}

static napi_value Spawn(napi_env env, napi_callback_info info) {
  size_t argc = 5;
  napi_value args[5];
  CHECK(napi_get_cb_info(env, info, &argc, args, NULL, NULL));
  if (argc < 5) {
    napi_throw_type_error(env, NULL, "spawn(file, argv, envp, cwd, stdio)");
    return NULL;
  }
  int stdio[3];
  for (uint32_t i = 0; i < 3; i++) {
    napi_value item;
    CHECK(napi_get_element(env, args[4], i, &item));
    CHECK(napi_get_value_int32(env, item, &stdio[i]));
  }
  char* file = string_of(env, args[0]);
  char** argv = strings_of(env, args[1]);
  char** envp = strings_of(env, args[2]);
  char* cwd = string_of(env, args[3]);
  int parent_ends[3] = {-1, -1, -1};
  int child_ends[3] = {-1, -1, -1};
  int error = 0;
  const char* what = "spawn";
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  posix_spawn_file_actions_init(&actions);
  posix_spawnattr_init(&attr);
  if (file == NULL || argv == NULL || envp == NULL || cwd == NULL) {
    error = ENOMEM;
    goto done;
  }
  for (int i = 0; i < 3 && error == 0; i++) {
    if (stdio[i] == -2) {
      int ends[2];
      if (pipe2(ends, O_CLOEXEC) != 0) {
        error = errno;
        what = "pipe";
        break;
      }
      // Stdin: the child reads, this process writes; stdout and stderr the other way round.
      child_ends[i] = i == 0 ? ends[0] : ends[1];
      parent_ends[i] = i == 0 ? ends[1] : ends[0];
      error = posix_spawn_file_actions_adddup2(&actions, child_ends[i], i);
    } else if (stdio[i] >= 0) {
      error = posix_spawn_file_actions_adddup2(&actions, stdio[i], i);
    } else {
      error = posix_spawn_file_actions_addopen(&actions, i, "/dev/null", i == 0 ? O_RDONLY : O_WRONLY, 0);
    }
  }
  if (error == 0) error = posix_spawn_file_actions_addchdir_np(&actions, cwd);
  if (error == 0) {
    sigset_t all, none;
    sigfillset(&all);
    sigemptyset(&none);
    posix_spawnattr_setsigdefault(&attr, &all);
    posix_spawnattr_setsigmask(&attr, &none);
    error = posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSID | POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK);
  }
  pid_t pid = -1;
  if (error == 0) error = posix_spawn(&pid, file, &actions, &attr, argv, envp);
done:
  posix_spawn_file_actions_destroy(&actions);
  posix_spawnattr_destroy(&attr);
  for (int i = 0; i < 3; i++)
    if (child_ends[i] >= 0) close(child_ends[i]);
  free(file);
  free(cwd);
  free_strings(argv);
  free_strings(envp);
  if (error != 0) {
    for (int i = 0; i < 3; i++)
      if (parent_ends[i] >= 0) close(parent_ends[i]);
    return throw_errno(env, error, what);
  }
  napi_value result, value, fds;
  CHECK(napi_create_object(env, &result));
  CHECK(napi_create_int32(env, pid, &value));
  CHECK(napi_set_named_property(env, result, "pid", value));
  CHECK(napi_create_array_with_length(env, 3, &fds));
  for (uint32_t i = 0; i < 3; i++) {
    CHECK(napi_create_int32(env, parent_ends[i], &value));
    CHECK(napi_set_element(env, fds, i, value));
  }
  CHECK(napi_set_named_property(env, result, "fds", fds));
  return result;
}

typedef struct {
  pid_t pid;
  int status;
  napi_threadsafe_function done;
} Watch;

static void* wait_for(void* data) {
  Watch* watch = data;
  int status = 0;
  pid_t waited;
  while ((waited = waitpid(watch->pid, &status, 0)) < 0 && errno == EINTR) {
  }
  // Never reaped here (another waiter took it): reported as ended by no signal with no code.
  watch->status = waited == watch->pid ? status : -1;
  // The call hands `watch` to the main thread, which frees it: nothing of it is read after the call.
  napi_threadsafe_function done = watch->done;
  napi_call_threadsafe_function(done, watch, napi_tsfn_blocking);
  napi_release_threadsafe_function(done, napi_tsfn_release);
  return NULL;
}

static void call_back(napi_env env, napi_value callback, void* context, void* data) {
  (void)context;
  Watch* watch = data;
  int status = watch->status;
  free(watch);
  if (env == NULL) return;
  napi_value undefined, argv[2];
  napi_get_undefined(env, &undefined);
  if (status == -1) {
    napi_get_null(env, &argv[0]);
    napi_get_null(env, &argv[1]);
  } else if (WIFEXITED(status)) {
    napi_create_int32(env, WEXITSTATUS(status), &argv[0]);
    napi_get_null(env, &argv[1]);
  } else {
    napi_get_null(env, &argv[0]);
    napi_create_int32(env, WIFSIGNALED(status) ? WTERMSIG(status) : 0, &argv[1]);
  }
  napi_call_function(env, undefined, callback, 2, argv, NULL);
}

static napi_value WatchExit(napi_env env, napi_callback_info info) {
  size_t argc = 2;
  napi_value args[2], name;
  CHECK(napi_get_cb_info(env, info, &argc, args, NULL, NULL));
  int32_t pid;
  CHECK(napi_get_value_int32(env, args[0], &pid));
  Watch* watch = calloc(1, sizeof(Watch));
  if (watch == NULL) return throw_errno(env, ENOMEM, "watch");
  watch->pid = pid;
  CHECK(napi_create_string_utf8(env, "presso-spawn-watch", NAPI_AUTO_LENGTH, &name));
  // The threadsafe function keeps the event loop alive until the child has been reaped, as libuv's
  // process handle does.
  CHECK(napi_create_threadsafe_function(env, args[1], NULL, name, 0, 1, NULL, NULL, NULL, call_back,
                                        &watch->done));
  pthread_attr_t attr;
  pthread_attr_init(&attr);
  pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
  pthread_attr_setstacksize(&attr, 64 * 1024);
  pthread_t thread;
  int error = pthread_create(&thread, &attr, wait_for, watch);
  pthread_attr_destroy(&attr);
  if (error != 0) {
    napi_release_threadsafe_function(watch->done, napi_tsfn_abort);
    free(watch);
    return throw_errno(env, error, "watch");
  }
  return NULL;
}

static napi_value Init(napi_env env, napi_value exports) {
  napi_value fn;
  CHECK(napi_create_function(env, "spawn", NAPI_AUTO_LENGTH, Spawn, NULL, &fn));
  CHECK(napi_set_named_property(env, exports, "spawn", fn));
  CHECK(napi_create_function(env, "watch", NAPI_AUTO_LENGTH, WatchExit, NULL, &fn));
  CHECK(napi_set_named_property(env, exports, "watch", fn));
  return exports;
}

NAPI_MODULE(NODE_GYP_MODULE_NAME, Init)

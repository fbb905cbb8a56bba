/* A library planted in a folder the user does not control (a cloned repository, an unpacked
 * archive), copied there under the names of the libraries gpuready or its children load:
 * libnvidia-ml.so.1, libcuda.so.1, libcudnn.so.9, libdnnl.so.3, libpthread.so.0 ...
 * Loading it runs its constructor, which leaves a file named after itself in the folder
 * GPUREADY_PLANT_MARKERS names (tests/unit/security_test.cpp asserts that folder stays empty).
 * It also exports the entry points gpuready would call first, so that a loader which picked it
 * up is not stopped by a missing symbol before the constructor is noticed. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void leave_marker(void) {
  const char* dir = getenv("GPUREADY_PLANT_MARKERS");
  if (!dir || !*dir) return;
  Dl_info info;
  const char* me = "unknown";
  if (dladdr((void*)&leave_marker, &info) && info.dli_fname) {
    const char* slash = strrchr(info.dli_fname, '/');
    me = slash ? slash + 1 : info.dli_fname;
  }
  char path[4096];
  snprintf(path, sizeof path, "%s/loaded-%s-by-%ld", dir, me, (long)getpid());
  int fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
  if (fd >= 0) {
    (void)!write(fd, info.dli_fname ? info.dli_fname : "?", info.dli_fname ? strlen(info.dli_fname) : 1);
    close(fd);
  }
}

__attribute__((constructor)) static void planted_constructor(void) { leave_marker(); }

/* What NVML, the driver API and the engines are asked for first. */
int nvmlInit_v2(void) { return 0; }
int nvmlShutdown(void) { return 0; }
int cuInit(unsigned flags) { (void)flags; return 0; }
int cuDriverGetVersion(int* v) { if (v) *v = 13000; return 0; }
int cudnnGetVersion(void) { return 91900; }

/* An engine module whose one dependency (libgpuready-planted-dep.so) is in no system folder, only
 * beside it in the build (found through the module's RUNPATH), as libdnnl.so.2 is on a machine
 * without oneDNN: the loader looks for it through LD_LIBRARY_PATH first. tests/unit/security_test.cpp
 * plants a library of that name in the current folder and names it with an empty LD_LIBRARY_PATH
 * entry; gpuready must never load the planted one. */
int gpuready_needs_dep_module(void) { return 1; }

/* The real libgpuready-planted-dep.so: nothing in it runs when it is loaded (see needs_dep.c). */
int gpuready_planted_dep_value(void) { return 7; }

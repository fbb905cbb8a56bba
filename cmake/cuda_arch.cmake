# The GPU architectures the optional CUDA module (gpu/) is compiled for, by the CUDA version of
# the compiler found. SASS (real) for every architecture from Turing (sm_75) that this nvcc
# supports, so each such GPU runs native code with no JIT at start; PTX (virtual) for the newest
# only, so a GPU newer than the toolkit still runs (the driver JIT-compiles it). Older GPUs
# (Maxwell, Pascal, Volta) are left out: CUDA 13 dropped them and the frameworks did earlier.
#   CUDA 11.1 - 11.7: sm_86 arrives          75 80 86           + PTX 86
#   CUDA 11.8 - 12.7: sm_89, sm_90           75 80 86 89 90     + PTX 90
#   CUDA 12.8 - 12.9: sm_100, sm_120         75 80 86 89 90 100 120 + PTX 120
#   CUDA 13.0+      : (sm_101 renamed 110)   75 80 86 89 90 100 120 + PTX 120
# GPUREADY_CUDA_ARCHITECTURES (a CMake list as CMAKE_CUDA_ARCHITECTURES takes it) overrides this,
# e.g. -DGPUREADY_CUDA_ARCHITECTURES=90-real for a quicker build for one machine.
function(gpuready_cuda_architectures out_var)
  set(v ${CMAKE_CUDA_COMPILER_VERSION})
  if(v VERSION_LESS 11.1)
    set(${out_var} "" PARENT_SCOPE)
    return()
  elseif(v VERSION_LESS 11.8)
    set(archs 75-real 80-real 86-real 86-virtual)
  elseif(v VERSION_LESS 12.8)
    set(archs 75-real 80-real 86-real 89-real 90-real 90-virtual)
  else()
    set(archs 75-real 80-real 86-real 89-real 90-real 100-real 120-real 120-virtual)
  endif()
  set(${out_var} ${archs} PARENT_SCOPE)
endfunction()

# Every build option of gpuready, in one place.
option(GPUREADY_BUILD_TESTS "Build the unit tests and the fake vendor libraries" ON)
option(GPUREADY_BUILD_FUZZERS "Build libFuzzer targets for the parsers (needs clang)" OFF)
option(GPUREADY_STATIC_CXX_RUNTIME "Link libstdc++ and libgcc statically into the gpuready executable (GCC)" ON)
option(GPUREADY_PCH "Precompile the headers every file includes (faster builds)" ON)
option(GPUREADY_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" OFF)
# The CUDA module (gpu/: GEMM, cuDNN and memory checks, bench's GPU engine). It needs no CUDA
# toolkit to build: its device code is the checked-in fatbin (gpu/device/README.md) and it talks to
# the driver API only. ON (default) builds it where its loader has a port (Linux today), OFF never.
set(GPUREADY_CUDA_MODULE ON CACHE STRING "Build the CUDA module: ON or OFF (AUTO is taken as ON)")
set_property(CACHE GPUREADY_CUDA_MODULE PROPERTY STRINGS ON OFF)

# Warnings for our own targets (not for third-party headers).
add_library(gpuready_warnings INTERFACE)
if(MSVC)
  target_compile_options(gpuready_warnings INTERFACE /W4 /permissive-)
else()
  target_compile_options(gpuready_warnings INTERFACE -Wall -Wextra -Wpedantic -Wshadow)
  if(GPUREADY_WARNINGS_AS_ERRORS)
    target_compile_options(gpuready_warnings INTERFACE -Werror)
  endif()
endif()

# Every build option of gpuready, in one place.
option(GPUREADY_BUILD_TESTS "Build the unit tests and the fake vendor libraries" ON)
option(GPUREADY_BUILD_FUZZERS "Build libFuzzer targets for the parsers (needs clang)" OFF)
option(GPUREADY_STATIC_CXX_RUNTIME "Link libstdc++ and libgcc statically into the gpuready executable (GCC)" ON)
option(GPUREADY_PCH "Precompile the headers every file includes (faster builds)" ON)
option(GPUREADY_WARNINGS_AS_ERRORS "Treat compiler warnings as errors" OFF)
# The optional CUDA module (gpu/: GEMM, cuDNN and memory checks): AUTO builds it when CMake finds
# a CUDA compiler (nvcc on PATH, CUDACXX, or /usr/local/cuda), ON requires one, OFF never builds it.
set(GPUREADY_CUDA_MODULE AUTO CACHE STRING "Build the optional CUDA module: AUTO, ON or OFF")
set_property(CACHE GPUREADY_CUDA_MODULE PROPERTY STRINGS AUTO ON OFF)
set(GPUREADY_CUDA_ARCHITECTURES "" CACHE STRING "Override the CUDA module's architecture list (cmake/cuda_arch.cmake)")

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

# The Windows probe, end to end: runs `gpuready.exe probe --json` (under Wine when cross-built,
# EMULATOR) on this machine and checks the snapshot says what a Windows machine without an NVIDIA
# GPU or driver must: the OS from the registry, no GPU, and for each driver library the reason.
# Run as: cmake -DEXE=gpuready.exe [-DEMULATOR=wine64] [-DOUT=snapshot.json] -P check_windows_probe.cmake
execute_process(COMMAND ${EMULATOR} ${EXE} probe --json OUTPUT_VARIABLE json ERROR_VARIABLE err RESULT_VARIABLE rc
                TIMEOUT 300)
if(OUT)
  file(WRITE ${OUT} "${json}")
endif()
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "gpuready probe --json exited with ${rc}: ${err}")
endif()

include(${CMAKE_CURRENT_LIST_DIR}/json_expect.cmake)

expect("schema" "^gpuready.snapshot/" schema)
expect("OS family" "^windows$" os family)
expect("OS name from the registry" "^[A-Za-z].*Windows" os name)
expect("OS version major.minor.build" "^[0-9]+\\.[0-9]+\\.[0-9]+" os version)
expect("architecture" "^x86_64$" os arch)
expect("kernel (RtlGetVersion)" "^[0-9]+\\.[0-9]+\\.[0-9]+$" os kernel)
expect_length("no NVIDIA GPU listed" 0 nvidia gpus)
expect("NVML: the reason names nvml.dll" "nvml\\.dll" nvidia driver_version unknown)
expect("CUDA driver: the reason names nvcuda.dll" "nvcuda\\.dll" nvidia cuda_library unknown)
expect("the NVIDIA driver's registry entry: a reason" "NVIDIA display driver|display adapter" nvidia kernel_module_version unknown)
expect_length("no CUDA toolkit" 0 toolkits)
# Every library the probe looked for has a resolution with a reason (System32, then PATH).
string(JSON n LENGTH "${json}" libraries resolutions)
if(n EQUAL 0)
  message(SEND_ERROR "no library resolutions: the Windows library search did not run")
else()
  math(EXPR last "${n} - 1")
  foreach(i RANGE ${last})
    string(JSON name GET "${json}" libraries resolutions ${i} soname)
    string(JSON why ERROR_VARIABLE e GET "${json}" libraries resolutions ${i} path unknown)
    if(e OR NOT why MATCHES "System32")
      message(SEND_ERROR "resolution of ${name}: expected 'not found in System32 or on PATH', got '${why}'")
    endif()
  endforeach()
  message(STATUS "ok   ${n} library names looked up, none found, each with its reason")
endif()

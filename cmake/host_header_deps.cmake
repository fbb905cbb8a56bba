# Dependencies for a MinGW-w64 cross-build from Debian (cmake/mingw-w64.cmake).
#
# CLI11, nlohmann_json, fmt and stb can all be used header-only, and a header does not care which
# OS it was packaged for. So a cross-build takes Debian's own copies (libcli11-dev,
# nlohmann-json3-dev, libfmt-dev with FMT_HEADER_ONLY, libstb-dev) instead of needing Windows
# builds of them. Each is linked into a folder of its own under the build tree, so that no other
# Linux header in /usr/include can leak into a Windows build. GoogleTest is compiled from Debian's
# sources (/usr/src/googletest, package googletest, pulled in by libgtest-dev) by tests/CMakeLists.txt.
#
# Defines the same imported targets find_package would: CLI11::CLI11, nlohmann_json::nlohmann_json,
# fmt::fmt-header-only, and sets GPUREADY_STB_INCLUDE_DIR.
set(GPUREADY_HOST_INCLUDE_DIR "/usr/include" CACHE PATH "Where the header-only dependencies of a cross-build are taken from")
set(_deps_dir "${CMAKE_BINARY_DIR}/host-headers")
file(MAKE_DIRECTORY "${_deps_dir}")

function(_gpuready_link_headers name probe_file)
  if(NOT EXISTS "${GPUREADY_HOST_INCLUDE_DIR}/${name}/${probe_file}")
    message(FATAL_ERROR "cross-build: ${GPUREADY_HOST_INCLUDE_DIR}/${name}/${probe_file} not found (Debian: apt install "
                        "libcli11-dev nlohmann-json3-dev libfmt-dev libstb-dev)")
  endif()
  file(CREATE_LINK "${GPUREADY_HOST_INCLUDE_DIR}/${name}" "${_deps_dir}/${name}" SYMBOLIC)
endfunction()

_gpuready_link_headers(CLI CLI.hpp)
_gpuready_link_headers(nlohmann json.hpp)
_gpuready_link_headers(fmt format-inl.h)
_gpuready_link_headers(stb stb_image.h)

if(NOT TARGET CLI11::CLI11)
  add_library(CLI11::CLI11 INTERFACE IMPORTED)
  set_target_properties(CLI11::CLI11 PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_deps_dir}")
endif()
if(NOT TARGET nlohmann_json::nlohmann_json)
  add_library(nlohmann_json::nlohmann_json INTERFACE IMPORTED)
  set_target_properties(nlohmann_json::nlohmann_json PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_deps_dir}")
endif()
if(NOT TARGET fmt::fmt-header-only)
  add_library(fmt::fmt-header-only INTERFACE IMPORTED)
  set_target_properties(fmt::fmt-header-only PROPERTIES INTERFACE_INCLUDE_DIRECTORIES "${_deps_dir}"
                                                        INTERFACE_COMPILE_DEFINITIONS FMT_HEADER_ONLY=1)
endif()
set(GPUREADY_STB_INCLUDE_DIR "${_deps_dir}/stb" CACHE PATH "stb headers" FORCE)

# Installing gpuready and packaging it (issue 26; scripts/package.sh makes every package):
#   bin/gpuready[.exe]                                   the executable (tables compiled in)
#   lib/gpuready/libgpuready-{cuda,cpu}.so               its optional modules, where gpuready looks for them
#                                                        (<exe dir>/../lib/gpuready/); Windows: beside the .exe
#   share/man/man1/gpuready.1.gz                         made from the CLI's own help (scripts/packaging/manpage.py)
#   share/bash-completion/completions/gpuready, share/zsh/vendor-completions/_gpuready
#                                                        `gpuready completion bash|zsh`
#   share/doc/gpuready/copyright                         the licence (LICENSE)
# The man page and completions are made by running the built gpuready (target gpuready_generated_docs), so a
# cross build installs them only where the files were made on the host (scripts/package.sh does).
include(GNUInstallDirs)

if(WIN32)
  # The zip: gpuready.exe, its DLLs beside it (where it looks first) and the licence, in one folder.
  set(GPUREADY_BIN_DIR .)
  set(GPUREADY_MODULE_DIR .)
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION . RENAME LICENSE.txt COMPONENT core)
else()
  set(GPUREADY_BIN_DIR ${CMAKE_INSTALL_BINDIR})
  set(GPUREADY_MODULE_DIR lib/gpuready)
  install(FILES ${PROJECT_SOURCE_DIR}/LICENSE DESTINATION ${CMAKE_INSTALL_DOCDIR} RENAME copyright COMPONENT core)
endif()
install(TARGETS gpuready RUNTIME DESTINATION ${GPUREADY_BIN_DIR} COMPONENT core)
foreach(module gpuready_cuda gpuready_cpu)
  if(TARGET ${module})
    # COMPONENT belongs to each kind of file it follows: a module is a LIBRARY on Linux, a RUNTIME (DLL) on Windows.
    install(TARGETS ${module} LIBRARY DESTINATION ${GPUREADY_MODULE_DIR} COMPONENT core
                              RUNTIME DESTINATION ${GPUREADY_MODULE_DIR} COMPONENT core)
  endif()
endforeach()

set(GPUREADY_GENERATED_DOCS_DIR ${PROJECT_BINARY_DIR}/generated CACHE PATH
    "Where the man page and shell completions made from the built gpuready are (scripts/package.sh)")
if(NOT CMAKE_CROSSCOMPILING)
  find_package(Python3 COMPONENTS Interpreter QUIET)
  if(Python3_FOUND)
    add_custom_target(gpuready_generated_docs
      COMMAND ${CMAKE_COMMAND} -E make_directory ${GPUREADY_GENERATED_DOCS_DIR}
      COMMAND ${Python3_EXECUTABLE} ${PROJECT_SOURCE_DIR}/scripts/packaging/manpage.py $<TARGET_FILE:gpuready>
              ${PROJECT_VERSION} ${GPUREADY_GENERATED_DOCS_DIR}/gpuready.1.gz
      COMMAND ${CMAKE_COMMAND} -DEXE=$<TARGET_FILE:gpuready> -DDIR=${GPUREADY_GENERATED_DOCS_DIR}
              -P ${PROJECT_SOURCE_DIR}/cmake/completion_files.cmake
      DEPENDS gpuready ${PROJECT_SOURCE_DIR}/scripts/packaging/manpage.py ${PROJECT_SOURCE_DIR}/cmake/completion_files.cmake
      VERBATIM
      COMMENT "Man page and shell completions from gpuready's own help")
  endif()
endif()
if(NOT WIN32)
  install(FILES ${GPUREADY_GENERATED_DOCS_DIR}/gpuready.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 OPTIONAL
          COMPONENT core)
  install(FILES ${GPUREADY_GENERATED_DOCS_DIR}/gpuready.bash DESTINATION share/bash-completion/completions
          RENAME gpuready OPTIONAL COMPONENT core)
  install(FILES ${GPUREADY_GENERATED_DOCS_DIR}/_gpuready DESTINATION share/zsh/vendor-completions OPTIONAL COMPONENT core)
endif()

# CPack: the Debian package (DEB), the portable archive (TGZ) and the Windows zip (ZIP). The file names are the
# issue's: gpuready_<version>_amd64.deb, gpuready-<version>-linux-x86_64.tar.gz, gpuready-<version>-windows-x86_64.zip.
set(CPACK_PACKAGE_NAME gpuready)
set(CPACK_PACKAGE_VENDOR "the gpuready project")
set(CPACK_PACKAGE_CONTACT "gpuready maintainers <maintainers@gpuready.invalid>")  # no address yet: .invalid, never mail
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "is this machine ready for GPU deep learning, and if not, exactly what to do")
set(CPACK_PACKAGE_DESCRIPTION
    "gpuready probes the GPU, driver, CUDA toolkits, libraries and Python environments of a machine (nothing needs to be
installed), plans the newest compatible stack, explains pasted errors, verifies copies, GEMM, cuDNN and memory
against the hardware and benchmarks a CNN epoch on the CPU and the GPU.")
set(CPACK_RESOURCE_FILE_LICENSE ${PROJECT_SOURCE_DIR}/LICENSE)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_STRIP_FILES ON)
set(CPACK_PACKAGE_CHECKSUM SHA256)
set(CPACK_PACKAGE_DIRECTORY ${PROJECT_BINARY_DIR}/packages)
set(CPACK_COMPONENTS_ALL core)
if(WIN32)
  set(CPACK_GENERATOR ZIP)
  set(CPACK_PACKAGE_FILE_NAME gpuready-${PROJECT_VERSION}-windows-x86_64)
  set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)
else()
  set(CPACK_GENERATOR "DEB;TGZ")
  set(CPACK_PACKAGE_FILE_NAME gpuready-${PROJECT_VERSION}-linux-x86_64)
  set(CPACK_INCLUDE_TOPLEVEL_DIRECTORY ON)
  set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # gpuready_<version>_amd64.deb
  set(CPACK_DEBIAN_PACKAGE_SECTION utils)
  # Depends: what the executable and the CUDA module link (scripts/package.sh asks dpkg-shlibdeps and passes it as
  # CPACK_DEBIAN_PACKAGE_DEPENDS). The CPU engine's oneDNN and OpenMP are only recommended: without them everything
  # but `bench --device cpu` works, and that says what is missing.
  set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "libdnnl2, libgomp1")
endif()
set(CPACK_DEB_COMPONENT_INSTALL OFF)
set(CPACK_ARCHIVE_COMPONENT_INSTALL OFF)
include(CPack)

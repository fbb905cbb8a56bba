# ctest fixture for a build whose tests run under Wine: makes (or updates) the Wine prefix once,
# before the tests start in parallel (two Wines creating one prefix at once can fail; the first
# start takes ~20 s). Run as: cmake -DWINE=/usr/lib/wine/wine64 -P wine_prefix.cmake
get_filename_component(dir ${WINE} DIRECTORY)
execute_process(COMMAND ${WINE} wineboot --init RESULT_VARIABLE rc OUTPUT_QUIET ERROR_QUIET TIMEOUT 300)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "${WINE} wineboot --init failed (${rc}); WINEPREFIX=$ENV{WINEPREFIX}")
endif()
# wineboot returns before the prefix is written out: wait for the wineserver to finish.
find_program(WINESERVER NAMES wineserver64 wineserver PATHS ${dir} NO_DEFAULT_PATH)
if(NOT WINESERVER)
  find_program(WINESERVER NAMES wineserver64 wineserver)
endif()
if(WINESERVER)
  execute_process(COMMAND ${WINESERVER} -w TIMEOUT 120)
  # Then one server for the whole run, kept until 60 s after its last client: otherwise each test
  # starts its own, and a Wine that connects while the previous test's server shuts down fails
  # with "wine client error:0: recvmsg: Connection reset by peer" (seen in CI). Its output goes to
  # files, not pipes: the server keeps them open, and execute_process would wait for them.
  execute_process(COMMAND ${WINESERVER} -p60 RESULT_VARIABLE rc OUTPUT_FILE ${CMAKE_CURRENT_BINARY_DIR}/wineserver.log
                  ERROR_FILE ${CMAKE_CURRENT_BINARY_DIR}/wineserver.log TIMEOUT 60)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "${WINESERVER} -p60 failed (${rc}); WINEPREFIX=$ENV{WINEPREFIX}")
  endif()
endif()
message(STATUS "Wine prefix ready: $ENV{WINEPREFIX}")

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
endif()
message(STATUS "Wine prefix ready: $ENV{WINEPREFIX}")

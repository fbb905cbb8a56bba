# Checks on a JSON document held in the caller's variable `json` (string(JSON)), for the
# check_windows_*.cmake scripts. A failed check is a SEND_ERROR: every check runs, the script fails.
# expect(<what> <regex> <json path...>): the value at that path, as text, must match the regex.
function(expect what regex)
  string(JSON value ERROR_VARIABLE error GET "${json}" ${ARGN})
  if(error)
    message(SEND_ERROR "${what}: ${ARGN} not found (${error})")
  elseif(NOT value MATCHES "${regex}")
    message(SEND_ERROR "${what}: ${ARGN} is '${value}', expected to match '${regex}'")
  else()
    message(STATUS "ok   ${what}: ${value}")
  endif()
endfunction()

# expect_length(<what> <n> <json path...>): the array there has n elements.
function(expect_length what n)
  string(JSON value ERROR_VARIABLE error LENGTH "${json}" ${ARGN})
  if(error OR NOT value EQUAL n)
    message(SEND_ERROR "${what}: ${ARGN} has '${value}${error}' elements, expected ${n}")
  else()
    message(STATUS "ok   ${what}")
  endif()
endfunction()


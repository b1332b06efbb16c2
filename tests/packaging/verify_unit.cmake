# systemd-analyze verify on packaging/systemd/scoria.service, with ExecStart
# pointed at the binary just built (verify insists the command exists).
#   cmake -DSCORIA=<binary> -DUNIT=<unit file> -DWORK=<scratch dir> -P verify_unit.cmake
find_program(SYSTEMD_ANALYZE systemd-analyze)
if(NOT SYSTEMD_ANALYZE)
  message(STATUS "systemd-analyze not found: nothing to verify")
  return()
endif()
file(READ ${UNIT} unit)
string(REPLACE "/usr/bin/scoria" "${SCORIA}" unit "${unit}")
file(MAKE_DIRECTORY ${WORK})
file(WRITE ${WORK}/scoria.service "${unit}")
execute_process(COMMAND ${SYSTEMD_ANALYZE} verify ${WORK}/scoria.service
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0 OR NOT err STREQUAL "")
  message(FATAL_ERROR "systemd-analyze verify found problems (exit ${rc}):\n${out}${err}")
endif()
foreach(required "Type=notify" "DynamicUser=yes" "ProtectSystem=strict" "StateDirectory=scoria"
                 "NoNewPrivileges=yes" "WatchdogSec=")
  string(FIND "${unit}" "${required}" at)
  if(at EQUAL -1)
    message(FATAL_ERROR "the unit lacks ${required}")
  endif()
endforeach()

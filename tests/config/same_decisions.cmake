# The default config in TOML and the same content in Volcano's YAML must make
# the same decisions: runs `scoria simulate` with both over every cluster of
# the scenario suite and the bundled example, and fails on the first output
# that differs (exit code, JSON, or error message).
#   cmake -DSCORIA=<binary> -DSOURCE_DIR=<repo> -P same_decisions.cmake
set(toml ${SOURCE_DIR}/config/scheduler.toml)
set(yaml ${SOURCE_DIR}/config/examples/volcano-scheduler.conf.yaml)
file(GLOB clusters ${SOURCE_DIR}/tests/scenarios/*/cluster.yaml)
list(PREPEND clusters ${SOURCE_DIR}/config/examples/cluster.yaml)
set(compared 0)
foreach(cluster ${clusters})
  foreach(format toml yaml)
    execute_process(COMMAND ${SCORIA} simulate --cycles 2 --config ${${format}} --output json
                            ${cluster}
                    RESULT_VARIABLE rc_${format} OUTPUT_VARIABLE out_${format}
                    ERROR_VARIABLE err_${format})
    # The config file's name is the only thing allowed to differ.
    string(REPLACE "${${format}}" "<config>" err_${format} "${err_${format}}")
  endforeach()
  if(NOT rc_toml STREQUAL rc_yaml OR NOT out_toml STREQUAL out_yaml
     OR NOT err_toml STREQUAL err_yaml)
    message(FATAL_ERROR "TOML and YAML default configs disagree on ${cluster}:\n"
                        "TOML (exit ${rc_toml}):\n${out_toml}${err_toml}\n"
                        "YAML (exit ${rc_yaml}):\n${out_yaml}${err_yaml}")
  endif()
  if(NOT rc_toml STREQUAL "0" AND NOT rc_toml STREQUAL "2")
    message(FATAL_ERROR "default config failed on ${cluster} (exit ${rc_toml}):\n${err_toml}")
  endif()
  math(EXPR compared "${compared} + 1")
endforeach()
message(STATUS "TOML and YAML default configs agree on ${compared} clusters")

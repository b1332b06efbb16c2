# Runs `scoria simulate` with the frozen-header plugin and checks where the pod
# went.   cmake -DSCORIA=.. -DPLUGIN_DIR=.. -DDIR=.. -P check_binding.cmake
execute_process(COMMAND ${SCORIA} simulate --plugin-dir ${PLUGIN_DIR}
                        --config ${DIR}/scheduler.toml --output json ${DIR}/cluster.yaml
                RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "simulate failed (${rc}):\n${err}")
endif()
string(JSON node GET "${out}" binds "apps/web")
if(NOT node STREQUAL "node-b")
  message(FATAL_ERROR "the 1.0 plugin was not honoured: apps/web went to ${node}\n${out}")
endif()

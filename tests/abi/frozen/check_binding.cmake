# Runs `scoria simulate` with a frozen-header plugin and checks where the pods
# went:
#   cmake -DSCORIA=.. -DPLUGIN_DIR=.. -DDIR=.. [-DCONFIG=..] [-DCLUSTER=..]
#         [-DEXPECT="ns/pod=node;..."] [-DWITHOUT=..] -P check_binding.cmake
# CONFIG and CLUSTER are files in DIR (scheduler.toml and cluster.yaml by
# default); EXPECT defaults to the 1.0 plugin's outcome, apps/web on node-b.
# WITHOUT, a config in DIR that leaves the plugin out, must place every pod
# of EXPECT elsewhere: the check fails when the plugin does nothing.
if(NOT CONFIG)
  set(CONFIG scheduler.toml)
endif()
if(NOT CLUSTER)
  set(CLUSTER cluster.yaml)
endif()
if(NOT EXPECT)
  set(EXPECT "apps/web=node-b")
endif()
function(simulate config)
  execute_process(COMMAND ${SCORIA} simulate --plugin-dir ${PLUGIN_DIR}
                          --config ${DIR}/${config} --output json ${DIR}/${CLUSTER}
                  RESULT_VARIABLE rc OUTPUT_VARIABLE out ERROR_VARIABLE err)
  if(NOT rc EQUAL 0)
    message(FATAL_ERROR "simulate --config ${config} failed (${rc}):\n${err}")
  endif()
  set(out "${out}" PARENT_SCOPE)
endfunction()

simulate(${CONFIG})
foreach(binding ${EXPECT})
  string(REPLACE "=" ";" binding "${binding}")
  list(GET binding 0 pod)
  list(GET binding 1 want)
  string(JSON node ERROR_VARIABLE unbound GET "${out}" binds "${pod}")
  if(unbound OR NOT node STREQUAL want)
    message(FATAL_ERROR "the plugin in ${PLUGIN_DIR} was not honoured: ${pod} went to "
                        "${node}, not ${want}\n${out}")
  endif()
endforeach()
if(WITHOUT)
  simulate(${WITHOUT})
  foreach(binding ${EXPECT})
    string(REPLACE "=" ";" binding "${binding}")
    list(GET binding 0 pod)
    list(GET binding 1 want)
    string(JSON node ERROR_VARIABLE unbound GET "${out}" binds "${pod}")
    if(node STREQUAL want)
      message(FATAL_ERROR "${pod} goes to ${want} under ${WITHOUT} too, without the plugin: "
                          "the check cannot fail\n${out}")
    endif()
  endforeach()
endif()

# scoria_add_scenario_test(<test name> DIR <folder> PLUGINS <plugin>...
#                          [WITHOUT <config>])
#
# A test of where pods land, the way Scoria's own scenario tests are written:
# `scoria simulate --output json` runs the folder's cluster.yaml under its
# scheduler.toml (or scheduler.yaml), with extra arguments from a file `args`
# if there is one (e.g. "--cycles 2"), and loads the plugins built by the
# PLUGINS (names given to scoria_add_plugin, or targets) from where they are
# built. The outcome must match the folder's expected.json:
#   binds, pipelined, evictions   compared whole (an extra bind fails);
#   podgroups, queues             each entry listed must be there, each field
#                                 listed equal, except "unschedulable", which
#                                 must be part of the actual message;
#   cycles                        equal, when listed;
#   exit_code (default 0), stderr_contains   for configs that must be refused.
#
# WITHOUT names a second config, in the folder or anywhere: the same scenario
# with the plugin left out (or replaced by the built-in it stands in for).
# A second test, <test name>.FailsWithoutPlugin, runs it and passes only when
# that run succeeds and its outcome does NOT match expected.json: proof that
# the expectation depends on the plugin, since a test that cannot fail
# proves nothing.
#
# The `scoria` run is SCORIA_EXECUTABLE, which find_package(ScoriaSDK) looks
# for beside the SDK and on the PATH; set it to use another.
include_guard(GLOBAL)

set(SCORIA_CHECK_SCENARIO_SCRIPT ${CMAKE_CURRENT_LIST_DIR}/ScoriaCheckScenario.cmake
    CACHE INTERNAL "Runs scoria simulate on a scenario folder and compares with expected.json")

function(scoria_add_scenario_test name)
  cmake_parse_arguments(ARG "" "DIR;WITHOUT" "PLUGINS" ${ARGN})
  if(NOT ARG_DIR OR NOT ARG_PLUGINS)
    message(FATAL_ERROR "scoria_add_scenario_test(${name}): DIR and PLUGINS are required")
  endif()
  if(NOT SCORIA_EXECUTABLE)
    find_program(SCORIA_EXECUTABLE scoria)
    if(NOT SCORIA_EXECUTABLE)
      message(FATAL_ERROR "scoria_add_scenario_test(${name}): no `scoria` found; install the "
                          "scoria package or set SCORIA_EXECUTABLE")
    endif()
  endif()
  get_filename_component(dir ${ARG_DIR} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
  set(plugin_dirs)
  foreach(plugin ${ARG_PLUGINS})
    if(TARGET scoria_plugin_${plugin})
      set(plugin scoria_plugin_${plugin})
    elseif(NOT TARGET ${plugin})
      message(FATAL_ERROR "scoria_add_scenario_test(${name}): no plugin target ${plugin}")
    endif()
    list(APPEND plugin_dirs $<TARGET_FILE_DIR:${plugin}>)
  endforeach()
  list(REMOVE_DUPLICATES plugin_dirs)
  set(common "-DSCORIA=${SCORIA_EXECUTABLE}" "-DDIR=${dir}" "-DPLUGIN_DIRS=${plugin_dirs}")
  add_test(NAME ${name} COMMAND ${CMAKE_COMMAND} ${common} -P ${SCORIA_CHECK_SCENARIO_SCRIPT})
  if(ARG_WITHOUT)
    get_filename_component(without ${ARG_WITHOUT} ABSOLUTE BASE_DIR ${CMAKE_CURRENT_SOURCE_DIR})
    add_test(NAME ${name}.FailsWithoutPlugin
             COMMAND ${CMAKE_COMMAND} ${common} "-DCONFIG=${without}" -DEXPECT_MISMATCH=ON
                     -P ${SCORIA_CHECK_SCENARIO_SCRIPT})
  endif()
endfunction()

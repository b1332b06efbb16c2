# scoria_add_plugin(<name> SOURCES <files...>)
#
# Builds one Scoria action or plugin as its own shared object
# (scoria-<name>.so) against the SDK only: hidden symbols except the entry
# point (a version script), no undefined symbols (a plugin must not reach into
# the host by name), position-independent code. Used by the built-in plugins
# and, through find_package(ScoriaSDK), by plugins built elsewhere.
#
# Set SCORIA_PLUGIN_OUTPUT_DIR before calling to choose where the .so goes,
# and SCORIA_PLUGIN_INSTALL_DIR to install it (e.g. lib/scoria/plugins).
include_guard(GLOBAL)

set(SCORIA_PLUGIN_EXPORTS_MAP ${CMAKE_CURRENT_LIST_DIR}/plugin-exports.map
    CACHE INTERNAL "Version script exporting only scoria_plugin_entry")

function(scoria_add_plugin name)
  cmake_parse_arguments(ARG "" "" "SOURCES" ${ARGN})
  set(target scoria_plugin_${name})
  add_library(${target} MODULE ${ARG_SOURCES})
  target_link_libraries(${target} PRIVATE Scoria::sdk)
  if(SCORIA_WARNINGS)
    target_compile_options(${target} PRIVATE ${SCORIA_WARNINGS})
  endif()
  set_target_properties(${target} PROPERTIES PREFIX "" OUTPUT_NAME "scoria-${name}")
  if(SCORIA_PLUGIN_OUTPUT_DIR)
    set_target_properties(${target} PROPERTIES LIBRARY_OUTPUT_DIRECTORY ${SCORIA_PLUGIN_OUTPUT_DIR})
  endif()
  target_link_options(${target} PRIVATE -Wl,--no-undefined
    -Wl,--version-script=${SCORIA_PLUGIN_EXPORTS_MAP})
  if(SCORIA_PLUGIN_INSTALL_DIR)
    install(TARGETS ${target} LIBRARY DESTINATION ${SCORIA_PLUGIN_INSTALL_DIR} COMPONENT plugins)
  endif()
endfunction()

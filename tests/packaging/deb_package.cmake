# Builds the Debian packages from the build tree with CPack and checks what
# they hold and say with dpkg-deb: files, conffiles, maintainer metadata,
# shared-library dependencies, and the SDK (headers, CMake and pkg-config
# files, Rust crates) kept to scoria-dev.
#   cmake -DBUILD_DIR=<build tree> -DWORK=<scratch dir> -P deb_package.cmake
find_program(DPKG_DEB dpkg-deb)
if(NOT DPKG_DEB)
  message(STATUS "dpkg-deb not found: no Debian package to check")
  return()
endif()
file(REMOVE_RECURSE ${WORK})
file(MAKE_DIRECTORY ${WORK})
execute_process(COMMAND ${CMAKE_CPACK_COMMAND} -G DEB -B ${WORK} --config
                        ${BUILD_DIR}/CPackConfig.cmake
                WORKING_DIRECTORY ${BUILD_DIR} RESULT_VARIABLE rc OUTPUT_VARIABLE out
                ERROR_VARIABLE err)
if(NOT rc EQUAL 0)
  message(FATAL_ERROR "cpack failed (${rc}):\n${out}${err}")
endif()
file(GLOB main ${WORK}/scoria_*.deb)
file(GLOB dev ${WORK}/scoria-dev_*.deb)
file(GLOB dbgsym ${WORK}/scoria-dbgsym_*.ddeb ${WORK}/scoria-dbgsym_*.deb)
if(NOT main OR NOT dev OR NOT dbgsym)
  message(FATAL_ERROR
          "expected scoria_*.deb, scoria-dev_*.deb and scoria-dbgsym_*.ddeb in ${WORK}:\n${out}")
endif()

# dpkg-deb <option> <deb> [fields...]
function(deb_output deb option)
  execute_process(COMMAND ${DPKG_DEB} ${option} ${deb} ${ARGN} RESULT_VARIABLE r OUTPUT_VARIABLE o
                  ERROR_VARIABLE e)
  if(NOT r EQUAL 0)
    message(FATAL_ERROR "dpkg-deb ${option} ${deb} failed:\n${e}")
  endif()
  set(deb_out "${o}" PARENT_SCOPE)
endfunction()

function(expect text what)
  foreach(needle ${ARGN})
    string(FIND "${text}" "${needle}" at)
    if(at EQUAL -1)
      message(FATAL_ERROR "${what} lacks \"${needle}\":\n${text}")
    endif()
  endforeach()
endfunction()

function(refuse text what)
  foreach(needle ${ARGN})
    string(FIND "${text}" "${needle}" at)
    if(NOT at EQUAL -1)
      message(FATAL_ERROR "${what} should not hold \"${needle}\":\n${text}")
    endif()
  endforeach()
endfunction()

deb_output(${main} --contents)
expect("${deb_out}" "scoria package contents" "./usr/bin/scoria"
       "./usr/lib/scoria/plugins/scoria-allocate.so" "./usr/lib/scoria/plugins/scoria-gang.so"
       "./usr/lib/scoria/plugins/scoria-proportion.so" "./etc/scoria/scheduler.toml"
       "./etc/scoria/volcano-scheduler.conf.yaml" "./usr/lib/systemd/system/scoria.service"
       "./usr/share/man/man1/scoria.1.gz" "./usr/share/doc/scoria/copyright"
       "./usr/share/doc/scoria/changelog.gz" "./usr/share/doc/scoria/README.md")
# ("doc/scoria-dev", not "scoria-dev": the deviceshare plugin's file name
# begins so.)
refuse("${deb_out}" "scoria package contents" "include/scoria" "scoria-sdk.pc" "/usr/lib/debug"
       "doc/scoria-dev" "share/scoria/rust")

# The binaries are stripped; their symbols are in scoria-dbgsym, by build id.
file(MAKE_DIRECTORY ${WORK}/main ${WORK}/dbgsym)
execute_process(COMMAND ${DPKG_DEB} -x ${main} ${WORK}/main RESULT_VARIABLE rc)
execute_process(COMMAND ${DPKG_DEB} -x ${dbgsym} ${WORK}/dbgsym RESULT_VARIABLE rc)
find_program(READELF readelf)
foreach(binary ${WORK}/main/usr/bin/scoria ${WORK}/main/usr/lib/scoria/plugins/scoria-gang.so)
  execute_process(COMMAND ${READELF} -S --wide ${binary} OUTPUT_VARIABLE sections)
  refuse("${sections}" "${binary}'s sections" ".debug_info" ".symtab")
  execute_process(COMMAND ${READELF} -n ${binary} OUTPUT_VARIABLE notes)
  string(REGEX MATCH "Build ID: ([0-9a-f][0-9a-f])([0-9a-f]+)" found "${notes}")
  if(NOT found)
    message(FATAL_ERROR "${binary} has no build id:\n${notes}")
  endif()
  set(debug ${WORK}/dbgsym/usr/lib/debug/.build-id/${CMAKE_MATCH_1}/${CMAKE_MATCH_2}.debug)
  if(NOT EXISTS ${debug})
    file(GLOB_RECURSE held RELATIVE ${WORK}/dbgsym ${WORK}/dbgsym/*)
    message(FATAL_ERROR "no ${debug} for ${binary} in scoria-dbgsym; it holds:\n${held}")
  endif()
  execute_process(COMMAND ${READELF} -S --wide ${debug} OUTPUT_VARIABLE sections)
  expect("${sections}" "${debug}'s sections" ".debug_info")
endforeach()
# The man page is the binary's help, every subcommand a section.
execute_process(COMMAND gzip -dc ${WORK}/main/usr/share/man/man1/scoria.1.gz OUTPUT_VARIABLE man)
expect("${man}" "scoria(1)" ".TH SCORIA 1" "SCORIA SIMULATE" "SCORIA SERVE" "SCORIA CTL"
       "usage: scoria serve --config CONF")

deb_output(${main} --info)
expect("${deb_out}" "scoria control" "Package: scoria" "Maintainer: " "Description: "
       "Depends: " "libsqlite3" "libsystemd0" "conffiles")
deb_output(${main} --field Maintainer)
if(NOT deb_out MATCHES "^.+<.+@.+>")
  message(FATAL_ERROR "Maintainer is not \"Name <address>\": ${deb_out}")
endif()
file(MAKE_DIRECTORY ${WORK}/control)
execute_process(COMMAND ${DPKG_DEB} --control ${main} ${WORK}/control RESULT_VARIABLE rc)
file(READ ${WORK}/control/conffiles conffiles)
expect("${conffiles}" "conffiles" "/etc/scoria/scheduler.toml"
       "/etc/scoria/volcano-scheduler.conf.yaml")

deb_output(${dev} --contents)
expect("${deb_out}" "scoria-dev contents" "./usr/include/scoria/scoria.h"
       "./usr/include/scoria/scoria.hpp" "ScoriaSDKConfig.cmake" "ScoriaPlugin.cmake"
       "ScoriaScenarioTest.cmake" "ScoriaCheckScenario.cmake" "pkgconfig/scoria-sdk.pc"
       "./usr/share/scoria/rust/scoria-sys/Cargo.toml"
       "./usr/share/scoria/rust/scoria-sys/src/bindings.rs"
       "./usr/share/scoria/rust/scoria/Cargo.toml" "./usr/share/scoria/rust/scoria/src/lib.rs")
refuse("${deb_out}" "scoria-dev contents" "/rust/scoria-sys/tests" "/rust/scoria/tests" "/target/")
# The SDK guide, its example plugins with their scenarios, and the frozen-ABI
# test, for a plugin author offline.
set(doc ./usr/share/doc/scoria-dev)
expect("${deb_out}" "scoria-dev contents" "${doc}/README.md" "${doc}/copyright"
       "${doc}/changelog.gz")
foreach(example avoid-label/avoid_label.cpp label-score/label_score.cpp
                small-job-first/small_job_first.cpp spare-role/spare_role.cpp spread/spread.cpp)
  get_filename_component(dir ${example} DIRECTORY)
  expect("${deb_out}" "scoria-dev contents" "${doc}/examples/${example}"
         "${doc}/examples/${dir}/CMakeLists.txt" "${doc}/examples/${dir}/test/cluster.yaml"
         "${doc}/examples/${dir}/test/scheduler.toml" "${doc}/examples/${dir}/test/expected.json"
         "${doc}/examples/${dir}/test/without.toml")
endforeach()
expect("${deb_out}" "scoria-dev contents" "${doc}/examples/abi-frozen/CMakeLists.txt"
       "${doc}/examples/abi-frozen/check_binding.cmake"
       "${doc}/examples/abi-frozen/v1.0/scoria/scoria.h" "${doc}/examples/abi-frozen/v10_prefer_node.c"
       "${doc}/examples/abi-frozen/v1.1/scoria/scoria.h" "${doc}/examples/abi-frozen/v11_queue_node.c")
refuse("${deb_out}" "scoria-dev contents" "./usr/bin/scoria" ".so\n")
deb_output(${dev} --field Package Architecture Recommends)
expect("${deb_out}" "scoria-dev control" "Package: scoria-dev" "Architecture: all"
       "Recommends: scoria")
message(STATUS "checked ${main} and ${dev}")

# The Debian packages, built with `cpack -G DEB` from a build tree:
#   scoria         the host, the built-in plugins, the config (as conffiles),
#                  the systemd unit, scoria(1) and /usr/share/doc/scoria;
#   scoria-dbgsym  their debug symbols (the binaries in scoria are stripped);
#   scoria-dev     the SDK: headers, the CMake package, scoria-sdk.pc and the
#                  Rust crates (/usr/share/scoria/rust), and in
#                  /usr/share/doc/scoria-dev its guide, example plugins and
#                  the frozen-ABI test (their tests run scoria, which it
#                  recommends).
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME scoria)
set(CPACK_PACKAGE_VENDOR "The Scoria authors")
set(CPACK_PACKAGE_CONTACT "Scoria maintainers <maintainers@scoria.invalid>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY
    "Batch scheduler for gangs, queues and fair shares, with plugins behind a stable C ABI")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_INSTALL_PREFIX /usr)
# The config goes to /etc, outside the prefix (see the top CMakeLists).
set(CPACK_SET_DESTDIR ON)

set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION admin)
set(CPACK_DEBIAN_PACKAGE_HOMEPAGE "https://scoria.invalid")
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
# Stripped binaries in the packages; their debug symbols in scoria-dbgsym
# (under /usr/lib/debug/.build-id, where gdb and debuginfod look).
set(CPACK_DEBIAN_DEBUGINFO_PACKAGE ON)
set(CPACK_DEBIAN_DEV_DEBUGINFO_PACKAGE OFF)

# runtime + plugins make the `scoria` package; sdk makes `scoria-dev`.
set(CPACK_COMPONENTS_ALL runtime plugins sdk)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_COMPONENT_RUNTIME_GROUP main)
set(CPACK_COMPONENT_PLUGINS_GROUP main)
set(CPACK_COMPONENT_SDK_GROUP dev)
set(CPACK_DEBIAN_MAIN_PACKAGE_NAME scoria)
set(CPACK_DEBIAN_DEV_PACKAGE_NAME scoria-dev)
set(CPACK_COMPONENT_GROUP_MAIN_DESCRIPTION
    "Scoria batch scheduler: the scoria host, built-in actions and plugins, default config and systemd unit")
set(CPACK_COMPONENT_GROUP_DEV_DESCRIPTION
    "Scoria plugin SDK: the C ABI header, the C++ layer, CMake package, pkg-config file and Rust crates")
set(CPACK_DEBIAN_MAIN_PACKAGE_CONTROL_EXTRA ${CMAKE_CURRENT_LIST_DIR}/conffiles)
set(CPACK_DEBIAN_DEV_PACKAGE_ARCHITECTURE all)
set(CPACK_DEBIAN_DEV_PACKAGE_SHLIBDEPS OFF)
set(CPACK_DEBIAN_DEV_PACKAGE_DEPENDS "")
set(CPACK_DEBIAN_DEV_PACKAGE_RECOMMENDS scoria)
include(CPack)

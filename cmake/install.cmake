# cmake --install for the host build: what another project needs to use utim
# on Linux.
#
#   <prefix>/include/utim/          the public headers (utim.h, time.h, tm.h, cmsis_os2*.h, ...)
#   <prefix>/include/utim/native/   the native board's and its drivers' headers
#                                   (board_native.h, clocksource.h: utim_now(), ...)
#   <prefix>/lib/                   the static libraries
#   <prefix>/lib/cmake/utim/        the package: find_package(utim CONFIG REQUIRED) gives
#                                   utim::core, utim::tm, utim::cmsis, utim::cmsis_posix and
#                                   utim::riot (RIOT's periph_timer API) and
#                                   utim::native (the native board, core and drivers as one
#                                   link group: what a Linux program links)
#   <prefix>/lib/pkgconfig/utim.pc  the same for pkg-config (utim on the native board)
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(_utim_targets utim_core utim_tm utim_cmsis utim_cmsis_posix utim_riot utim_native_hw
  utim_drv_native_counter utim_drv_native_alarm utim_board_native_lib utim_board_native)
set_target_properties(utim_core PROPERTIES EXPORT_NAME core)
set_target_properties(utim_tm PROPERTIES EXPORT_NAME tm)
set_target_properties(utim_cmsis PROPERTIES EXPORT_NAME cmsis)
set_target_properties(utim_cmsis_posix PROPERTIES EXPORT_NAME cmsis_posix)
set_target_properties(utim_riot PROPERTIES EXPORT_NAME riot)
set_target_properties(utim_native_hw PROPERTIES EXPORT_NAME native_hw)
set_target_properties(utim_drv_native_counter PROPERTIES EXPORT_NAME drv_native_counter)
set_target_properties(utim_drv_native_alarm PROPERTIES EXPORT_NAME drv_native_alarm)
set_target_properties(utim_board_native_lib PROPERTIES EXPORT_NAME native_lib)
set_target_properties(utim_board_native PROPERTIES EXPORT_NAME native)

install(TARGETS ${_utim_targets} EXPORT utimTargets
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} ${CMAKE_INSTALL_INCLUDEDIR}/utim/native)
# Not the headers of libraries this package does not hold: the hardware time manager's
# task delays (tm_htm.h: utim_tm_htm and the block's driver, sim only) and the CMSIS
# layer's bare-metal binding (cmsis_os2_cortexm.h: utim_cmsis_cortexm, Cortex-M only).
install(DIRECTORY ${utim_SOURCE_DIR}/include/utim DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}
  FILES_MATCHING PATTERN "*.h" PATTERN "*.hpp"
  PATTERN "tm_htm.h" EXCLUDE PATTERN "cmsis_os2_cortexm.h" EXCLUDE)
install(FILES
  ${utim_SOURCE_DIR}/boards/native/board_native.h
  ${utim_SOURCE_DIR}/boards/native/clocksource.h
  ${utim_SOURCE_DIR}/drivers/native_counter/utim_native_counter.h
  ${utim_SOURCE_DIR}/drivers/native_alarm/utim_native_alarm.h
  ${utim_SOURCE_DIR}/drivers/native_hw/utim_native_hw.h
  ${utim_SOURCE_DIR}/drivers/native_hw/utim_native_line.h
  ${utim_SOURCE_DIR}/drivers/native_hw/utim_seqlock.h
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/utim/native)

set(_utim_cmake_dir ${CMAKE_INSTALL_LIBDIR}/cmake/utim)
install(EXPORT utimTargets NAMESPACE utim:: DESTINATION ${_utim_cmake_dir})
configure_package_config_file(${utim_SOURCE_DIR}/cmake/utimConfig.cmake.in
  ${utim_BINARY_DIR}/utimConfig.cmake INSTALL_DESTINATION ${_utim_cmake_dir})
write_basic_package_version_file(${utim_BINARY_DIR}/utimConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMinorVersion)
install(FILES ${utim_BINARY_DIR}/utimConfig.cmake ${utim_BINARY_DIR}/utimConfigVersion.cmake
  DESTINATION ${_utim_cmake_dir})

# pkg-config: the archives form a cycle (board <-> core), hence the group. The
# prefix is found from the file's own place (${pcfiledir}), so that
# `cmake --install --prefix DIR` gives a working file wherever DIR is.
file(RELATIVE_PATH _utim_pc_up /${CMAKE_INSTALL_LIBDIR}/pkgconfig /)
string(REGEX REPLACE "/$" "" _utim_pc_up "${_utim_pc_up}")
configure_file(${utim_SOURCE_DIR}/cmake/utim.pc.in ${utim_BINARY_DIR}/utim.pc @ONLY)
install(FILES ${utim_BINARY_DIR}/utim.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Helpers that define utim's library targets, each in one place.
#
#   utim_add_driver(<name> [HOSTED] [LINK <libs...>])
#       utim_drv_<name>: a static library of drivers/<name>/*.c, its folder as
#       include directory, linked with utim_core (and <libs>); freestanding
#       unless HOSTED (a driver of the Linux host).
#   utim_add_board(<name> SOURCES <files...> DRIVERS <names...> [INCLUDE <dirs...>]
#                  [LINK <libs...>])
#       utim_board_<name>_lib: the board's static library (instance table,
#       port, start-up...), and utim_board_<name>: what a program links. The
#       core calls the board's port and instance table, which call the core
#       and the drivers: the archives form one link group, so a program names
#       the board once, in any order.

function(utim_add_driver name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "HOSTED" "" "LINK")
  file(GLOB src CONFIGURE_DEPENDS ${utim_SOURCE_DIR}/drivers/${name}/*.c)
  add_library(utim_drv_${name} STATIC ${src})
  target_include_directories(utim_drv_${name} PUBLIC $<BUILD_INTERFACE:${utim_SOURCE_DIR}/drivers/${name}>)
  target_link_libraries(utim_drv_${name} PUBLIC utim_core ${arg_LINK})
  if(NOT arg_HOSTED)
    target_compile_options(utim_drv_${name} PRIVATE -ffreestanding)
  endif()
endfunction()

function(utim_add_board name)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "" "SOURCES;DRIVERS;INCLUDE;LINK")
  set(drvs)
  foreach(d IN LISTS arg_DRIVERS)
    list(APPEND drvs utim_drv_${d})
  endforeach()
  add_library(utim_board_${name}_lib STATIC ${arg_SOURCES})
  foreach(dir IN LISTS arg_INCLUDE)
    target_include_directories(utim_board_${name}_lib PUBLIC $<BUILD_INTERFACE:${dir}>)
  endforeach()
  target_link_libraries(utim_board_${name}_lib PUBLIC ${drvs} utim_core ${arg_LINK})
  add_library(utim_board_${name} INTERFACE)
  string(REPLACE ";" "," group "utim_board_${name}_lib;${drvs};utim_core")
  # Installed (cmake/install.cmake), the same group names the exported targets:
  # utim::<board>_lib, utim::drv_<driver>, utim::core.
  set(inst "utim::${name}_lib")
  foreach(d IN LISTS arg_DRIVERS)
    string(APPEND inst ",utim::drv_${d}")
  endforeach()
  target_link_libraries(utim_board_${name} INTERFACE
    "$<BUILD_INTERFACE:$<LINK_GROUP:RESCAN,${group}>>"
    "$<INSTALL_INTERFACE:$<LINK_GROUP:RESCAN,${inst},utim::core>>" ${arg_LINK})
endfunction()

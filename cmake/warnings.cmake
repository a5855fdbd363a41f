# Warnings and build variants for microbench's own targets (never imposed on consumers).
#   MICROBENCH_WERROR      -Werror on top of -Wall -Wextra -Wpedantic
#   MICROBENCH_NO_EXCEPTIONS  build everything with -fno-exceptions -fno-rtti
#   MICROBENCH_SANITIZE    e.g. "address,undefined" or "thread"
option(MICROBENCH_WERROR "Treat warnings as errors" OFF)
option(MICROBENCH_NO_EXCEPTIONS "Build with -fno-exceptions -fno-rtti" OFF)
set(MICROBENCH_SANITIZE "" CACHE STRING "Sanitizers to build with, e.g. address,undefined")

add_library(microbench_build_flags INTERFACE)
target_compile_options(microbench_build_flags INTERFACE -Wall -Wextra -Wpedantic
  $<$<BOOL:${MICROBENCH_WERROR}>:-Werror>
  $<$<BOOL:${MICROBENCH_NO_EXCEPTIONS}>:-fno-exceptions -fno-rtti>)
if(MICROBENCH_SANITIZE)
  target_compile_options(microbench_build_flags INTERFACE
    -fsanitize=${MICROBENCH_SANITIZE} -fno-omit-frame-pointer -fno-sanitize-recover=all)
  target_link_options(microbench_build_flags INTERFACE -fsanitize=${MICROBENCH_SANITIZE})
endif()

# Cross-compiling for aarch64-linux-gnu with Debian's g++-aarch64-linux-gnu; tests run under qemu-aarch64.
#   cmake -S . -B build/aarch64-linux-gnu -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/aarch64-linux-gnu.cmake
set(MICROBENCH_CROSS_TRIPLE aarch64-linux-gnu)
set(MICROBENCH_CROSS_QEMU qemu-aarch64)
set(CMAKE_SYSTEM_PROCESSOR aarch64)
include("${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake")

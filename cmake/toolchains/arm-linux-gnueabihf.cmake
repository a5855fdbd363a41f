# Cross-compiling for arm-linux-gnueabihf (32-bit ARM, hard float) with Debian's
# g++-arm-linux-gnueabihf; tests run under qemu-arm.
#   cmake -S . -B build/arm-linux-gnueabihf -DCMAKE_TOOLCHAIN_FILE=cmake/toolchains/arm-linux-gnueabihf.cmake
set(MICROBENCH_CROSS_TRIPLE arm-linux-gnueabihf)
set(MICROBENCH_CROSS_QEMU qemu-arm)
set(CMAKE_SYSTEM_PROCESSOR arm)
include("${CMAKE_CURRENT_LIST_DIR}/debian-cross.cmake")
# 64-bit file offsets: a 32-bit program's readdir() otherwise fails with EOVERFLOW on a 64-bit
# kernel's ext4 (as under qemu-user). GCC's note that std::vector iterators are passed
# differently since GCC 7.1 concerns objects built by GCC older than 7; nothing here is.
set(CMAKE_C_FLAGS_INIT "-D_FILE_OFFSET_BITS=64")
set(CMAKE_CXX_FLAGS_INIT "-D_FILE_OFFSET_BITS=64 -Wno-psabi")

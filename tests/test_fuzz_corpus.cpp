// Replays the fuzz corpus (tests/fuzz/corpus) through the fuzz target in every build, so the
// differential whole-vs-pieces check runs under GCC, -fno-exceptions and the sanitizers too.
#include <doctest/doctest.h>

#include <dirent.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

int microbench_fuzz_response_parser(const std::uint8_t* data, std::size_t size);

TEST_CASE("fuzz corpus: whole and piecewise parsing agree on every seed") {
    std::vector<std::string> files;
    if (DIR* dir = opendir(MICROBENCH_FUZZ_CORPUS)) {
        while (dirent* e = readdir(dir))
            if (e->d_name[0] != '.') files.push_back(std::string(MICROBENCH_FUZZ_CORPUS) + "/" + e->d_name);
        closedir(dir);
    }
    REQUIRE(files.size() >= 10);
    for (const std::string& path : files) {
        CAPTURE(path);
        std::ifstream in(path, std::ios::binary);
        std::string bytes((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
        REQUIRE_FALSE(bytes.empty());
        // The seed's own piece size, then every other one.
        CHECK(microbench_fuzz_response_parser(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) == 0);
        for (char flags = 0; flags < 32; ++flags) {
            bytes[0] = flags;
            CHECK(microbench_fuzz_response_parser(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) == 0);
        }
    }
}

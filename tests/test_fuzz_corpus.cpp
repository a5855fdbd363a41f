// Replays the fuzz corpora (tests/fuzz/corpus, tests/fuzz/report_corpus, tests/fuzz/hlog_corpus)
// through their fuzz targets in every build, so the differential whole-vs-pieces check of the
// parser, the saved results' read-draw-write check and the interval logs' round trips run under
// GCC, -fno-exceptions and the sanitizers too.
#include <doctest/doctest.h>

#include <dirent.h>

#include <cstdint>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

int microbench_fuzz_response_parser(const std::uint8_t* data, std::size_t size);
int microbench_fuzz_report(const std::uint8_t* data, std::size_t size);
int microbench_fuzz_hlog(const std::uint8_t* data, std::size_t size);

namespace {

std::vector<std::string> files_in(const char* folder) {
    std::vector<std::string> files;
    if (DIR* dir = opendir(folder)) {
        while (dirent* e = readdir(dir))
            if (e->d_name[0] != '.') files.push_back(std::string(folder) + "/" + e->d_name);
        closedir(dir);
    }
    return files;
}

std::string contents(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

}  // namespace

TEST_CASE("fuzz corpus: whole and piecewise parsing agree on every seed") {
    const std::vector<std::string> files = files_in(MICROBENCH_FUZZ_CORPUS);
    REQUIRE(files.size() >= 10);
    for (const std::string& path : files) {
        CAPTURE(path);
        std::string bytes = contents(path);
        REQUIRE_FALSE(bytes.empty());
        // The seed's own piece size, then every other one.
        CHECK(microbench_fuzz_response_parser(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) == 0);
        for (char flags = 0; flags < 32; ++flags) {
            bytes[0] = flags;
            CHECK(microbench_fuzz_response_parser(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) == 0);
        }
    }
}

TEST_CASE("fuzz corpus: every saved-result seed is refused with a reason or drawn and written back alike") {
    const std::vector<std::string> files = files_in(MICROBENCH_FUZZ_REPORT_CORPUS);
    std::size_t json = 0;
    for (const std::string& path : files) {
        if (path.size() < 5 || path.compare(path.size() - 5, 5, ".json") != 0) continue;
        CAPTURE(path);
        ++json;
        const std::string bytes = contents(path);
        REQUIRE_FALSE(bytes.empty());
        CHECK(microbench_fuzz_report(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) == 0);
    }
    CHECK(json >= 5);
}

TEST_CASE("fuzz corpus: every interval-log seed, cut or changed, reads whole or is refused at a named line") {
    std::size_t logs = 0;
    for (const std::string& path : files_in(MICROBENCH_FUZZ_HLOG_CORPUS)) {
        if (path.size() < 5 || path.compare(path.size() - 5, 5, ".hlog") != 0) continue;
        CAPTURE(path);
        ++logs;
        std::string bytes = contents(path);
        REQUIRE_FALSE(bytes.empty());
        CHECK(microbench_fuzz_hlog(reinterpret_cast<const std::uint8_t*>(bytes.data()), bytes.size()) == 0);
        // Cut short and with a byte changed, too.
        for (std::size_t cut = 0; cut < bytes.size(); cut += 1 + bytes.size() / 64)
            CHECK(microbench_fuzz_hlog(reinterpret_cast<const std::uint8_t*>(bytes.data()), cut) == 0);
        for (std::size_t at = 0; at < bytes.size(); at += 1 + bytes.size() / 64) {
            std::string changed = bytes;
            changed[at] = static_cast<char>(changed[at] ^ 0x5a);
            CHECK(microbench_fuzz_hlog(reinterpret_cast<const std::uint8_t*>(changed.data()), changed.size()) == 0);
        }
    }
    CHECK(logs >= 4);
}

// Tests for error.hpp: every code has a unique number, a unique name and a message.
#include <doctest/doctest.h>

#include <cstring>
#include <set>
#include <string>

#include "microbench.hpp"

using namespace microbench;

TEST_CASE("error codes have unique numbers, names and non-empty messages") {
    std::set<int> numbers;
    std::set<std::string> names;
    for (const auto& e : detail::errc_table) {
        CHECK(numbers.insert(static_cast<int>(e.code)).second);
        CHECK(names.insert(e.name).second);
        CHECK(std::strlen(e.message) > 0);
        CHECK(std::string(errc_name(e.code)) == e.name);
    }
    CHECK(numbers.size() == sizeof(detail::errc_table) / sizeof(detail::errc_table[0]));
}

TEST_CASE("error converts to true only when it carries a code") {
    CHECK_FALSE(error{});
    error e{errc::url_bad_port, 17};
    CHECK(static_cast<bool>(e));
    CHECK(std::string(e.name()) == "url_bad_port");
    CHECK(e.position == 17);
    CHECK(std::string(errc_name(static_cast<errc>(9999))) == "unknown");
}

// Tests for error.hpp: every code has a unique number, a unique name and a message.
#include <doctest/doctest.h>

#include <cstring>
#include <set>
#include <string>
#include <string_view>

#include "microbench.hpp"

using namespace microbench;

TEST_CASE("error codes have unique numbers, names and non-empty messages") {
    std::set<int> numbers;
    std::set<std::string> names;
    for (std::size_t k = 0; k < detail::errc_count; ++k) {
        const auto code = static_cast<errc>(detail::errc_numbers[k]);
        CHECK(numbers.insert(detail::errc_numbers[k]).second);
        CHECK(names.insert(errc_name(code)).second);
        CHECK(std::strlen(errc_message(code)) > 0);
        CHECK(std::string(errc_name(code)) != "unknown");
    }
    CHECK(numbers.size() == detail::errc_count);
    CHECK(names.size() == detail::errc_count);
    static_assert(std::string_view(errc_name(errc::url_bad_port)) == "url_bad_port", "names are found at compile time, each its own");
    static_assert(std::string_view(errc_name(errc::url_bad_host)) == "url_bad_host", "names are found at compile time, each its own");
    static_assert(std::string_view(errc_message(errc::result_not_microbench)) ==
                      "not a microbench result: no \"microbench\" version, or not a single run, a --compare or a --suite document",
                  "a message with quotes in it comes back whole");
    CHECK(std::string(errc_message(errc::url_tls_unsupported)).find("MICROBENCH_NO_TLS") != std::string::npos);
    CHECK(std::string(errc_name(errc::out_of_memory)) == "out_of_memory");  // the last: the offsets reach the end
}

TEST_CASE("error converts to true only when it carries a code") {
    CHECK_FALSE(error{});
    error e{errc::url_bad_port, 17};
    CHECK(static_cast<bool>(e));
    CHECK(std::string(e.name()) == "url_bad_port");
    CHECK(e.position == 17);
    CHECK(std::string(errc_name(static_cast<errc>(9999))) == "unknown");
}

// Tests for microbench/http/url_ranges.hpp: the URLs a URL with ranges stands for, and the byte
// each fault is at.
#include <doctest/doctest.h>

#include <string>
#include <vector>

#include "microbench.hpp"

namespace mb = microbench;

namespace {

std::vector<std::string> expand(const std::string& text) {
    std::vector<std::string> out;
    const mb::error e = mb::expand_url_ranges(text, out);
    CHECK_MESSAGE(!e, text, ": ", e.message());
    return out;
}

}  // namespace

TEST_CASE("url ranges: integers, ascending and descending, in the path and the query") {
    CHECK(expand("http://h/factorial/{0..3}") ==
          std::vector<std::string>{"http://h/factorial/0", "http://h/factorial/1", "http://h/factorial/2",
                                   "http://h/factorial/3"});
    CHECK(expand("http://h/f?n={3..1}") == std::vector<std::string>{"http://h/f?n=3", "http://h/f?n=2", "http://h/f?n=1"});
    CHECK(expand("http://h/{-1..1}") == std::vector<std::string>{"http://h/-1", "http://h/0", "http://h/1"});
    CHECK(expand("http://h/{7..7}") == std::vector<std::string>{"http://h/7"});
}

TEST_CASE("url ranges: a bound typed with a leading zero pads every number to the wider bound") {
    CHECK(expand("http://h/{08..11}") ==
          std::vector<std::string>{"http://h/08", "http://h/09", "http://h/10", "http://h/11"});
    CHECK(expand("http://h/{1..010}").front() == "http://h/001");
    CHECK(expand("http://h/{-02..0}") == std::vector<std::string>{"http://h/-02", "http://h/-01", "http://h/00"});
    CHECK(expand("http://h/{9..10}") == std::vector<std::string>{"http://h/9", "http://h/10"});  // no padding
}

TEST_CASE("url ranges: words, an empty one too, and several ranges multiply (the last fastest)") {
    CHECK(expand("http://h/{a,bb,c}") == std::vector<std::string>{"http://h/a", "http://h/bb", "http://h/c"});
    CHECK(expand("http://h/item{,s}") == std::vector<std::string>{"http://h/item", "http://h/items"});
    CHECK(expand("http://h/{x,y}/{1..2}?q={a,b}") ==
          std::vector<std::string>{"http://h/x/1?q=a", "http://h/x/1?q=b", "http://h/x/2?q=a", "http://h/x/2?q=b",
                                   "http://h/y/1?q=a", "http://h/y/1?q=b", "http://h/y/2?q=a", "http://h/y/2?q=b"});
    CHECK(expand("http://h:8080/plain") == std::vector<std::string>{"http://h:8080/plain"});
    std::uint64_t n = 0;
    REQUIRE(!mb::count_url_ranges("http://h/{0..99}/{a,b,c}/{1..10}", n));
    CHECK(n == 3000);
}

TEST_CASE("url ranges: each fault names its code and the byte it is at") {
    struct fault {
        const char* text;
        mb::errc code;
        std::size_t at;
    };
    const fault faults[] = {
        {"http://h/{1..", mb::errc::url_range_unclosed, 9},
        {"http://h/{1..{2..3}}", mb::errc::url_range_unclosed, 9},    // no nesting
        {"http://h/1..3}", mb::errc::url_bad_range, 13},              // a closing brace alone
        {"http://h/{abc}", mb::errc::url_bad_range, 9},               // neither .. nor a comma
        {"http://h/{}", mb::errc::url_bad_range, 9},
        {"http://h/{x..3}", mb::errc::url_bad_range, 10},             // the first bound
        {"http://h/{1..3x}", mb::errc::url_bad_range, 13},            // the second bound
        {"http://h/{1..}", mb::errc::url_bad_range, 13},
        {"http://h/{1..1234567890123456789}", mb::errc::url_bad_range, 13},  // 19 digits
        {"http://{a,b}/", mb::errc::url_range_in_origin, 7},
        {"http://h:{80,81}/", mb::errc::url_range_in_origin, 9},
        {"{http,https}://h/", mb::errc::url_range_in_origin, 0},
    };
    for (const fault& f : faults) {
        std::vector<std::string> out;
        const mb::error e = mb::expand_url_ranges(f.text, out);
        CHECK_MESSAGE(e.code == f.code, f.text, ": ", e.name());
        CHECK_MESSAGE(e.position == f.at, f.text);
        CHECK(out.empty());
    }
}

TEST_CASE("url ranges: the count is checked against the limit before anything is built") {
    std::vector<std::string> out;
    mb::error e = mb::expand_url_ranges("http://h/{1..1000}/{1..1001}", out);  // 1,001,000
    CHECK(e.code == mb::errc::url_too_many_targets);
    CHECK(e.position == 19);  // the range that passed the limit
    CHECK(out.empty());
    e = mb::expand_url_ranges("http://h/{1..1000}/{1..1000}", out);  // 1,000,000: at the limit
    CHECK(!e);
    CHECK(out.size() == 1'000'000);
    CHECK(out.back() == "http://h/1000/1000");
    std::uint64_t n = 0;
    e = mb::count_url_ranges("http://h/{-999999999999999999..999999999999999999}/{1..2}", n, UINT64_MAX);
    CHECK(!e);  // (2 × 10^18 − 1) × 2 values: within 64 bits
    CHECK(n == 2 * 1'999'999'999'999'999'999ULL);
    out.clear();
    CHECK(mb::expand_url_ranges("http://h/{1..3}", out, 2).code == mb::errc::url_too_many_targets);
    CHECK(out.empty());
}

TEST_CASE("url ranges: a stretch of the URLs, from any index, and a fragment's braces left alone") {
    std::vector<std::string> got;
    const auto keep = [&got](const std::string& url, std::uint64_t k) { got.push_back(std::to_string(k) + " " + url); };
    REQUIRE(!mb::for_each_url("http://h/{a,b,c}/{1..2}", 3, 2, keep));
    CHECK(got == std::vector<std::string>{"3 http://h/b/2", "4 http://h/c/1"});
    got.clear();
    CHECK(mb::for_each_url("http://h/{a,b,c}/{1..2}", 5, 2, keep).code == mb::errc::url_too_many_targets);  // past the end
    CHECK(got.empty());
    CHECK(expand("http://h/{1..2}#{x,y}") == std::vector<std::string>{"http://h/1#{x,y}", "http://h/2#{x,y}"});
    CHECK(expand("http://h/a#}") == std::vector<std::string>{"http://h/a#}"});
    std::vector<std::string> out;
    CHECK(mb::expand_url_ranges("http://h/{1..#2}", out).code == mb::errc::url_range_unclosed);
}

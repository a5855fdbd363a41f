// microbench-inspect: shows what microbench would send to a URL and how it reads a response.
//   microbench-inspect [-m METHOD] [-H 'Name: value']... [-p BODY_FILE] [-T TYPE] [-c] URL [RESPONSE_FILE | -]
// Prints the parsed URL, the exact request bytes, and — given a raw response (a file, or - for
// stdin) — every response in it: status, framing, keep-alive, headers, body size, or the exact
// error and byte position. Offline: it opens no socket.
#include <cstdio>
#include <cstring>
#include <string>

#include "microbench.hpp"

namespace mb = microbench;

namespace {

void print_escaped(std::string_view bytes) {
    for (char ch : bytes) {
        auto c = static_cast<unsigned char>(ch);
        if (c == '\r') std::fputs("\\r", stdout);
        else if (c == '\n') std::fputs("\\n\n", stdout);
        else if (c < 0x20 || c >= 0x7f) std::printf("\\x%02x", c);
        else std::putchar(c);
    }
    if (!bytes.empty() && bytes.back() != '\n') std::putchar('\n');
}

bool read_file(const char* path, std::string& out) {
    FILE* f = std::strcmp(path, "-") == 0 ? stdin : std::fopen(path, "rb");
    if (!f) return false;
    char buf[65536];
    for (std::size_t n; (n = std::fread(buf, 1, sizeof buf, f)) > 0;) out.append(buf, n);
    if (f != stdin) std::fclose(f);
    return true;
}

const char* framing_name(mb::body_framing f) {
    switch (f) {
        case mb::body_framing::none: return "no body";
        case mb::body_framing::content_length: return "Content-Length";
        case mb::body_framing::chunked: return "chunked";
        case mb::body_framing::until_close: return "until close";
    }
    return "?";
}

// Parses every response in `bytes` as if they arrived on one connection that then closed.
int inspect_responses(std::string_view bytes, bool head) {
    mb::response_parser parser;
    parser.reset(head);
    int count = 0;
    for (;;) {
        mb::parse_result r = parser.parse(bytes);
        bytes.remove_prefix(r.consumed);
        if (r.event == mb::parse_event::need_more) r = parser.finish();
        if (r.event == mb::parse_event::headers) {
            std::printf("response %d: HTTP/1.%d %d, body: %s, connection reusable: %s\n", ++count, parser.http_minor(),
                        parser.status(), framing_name(parser.framing()), parser.keep_alive() ? "yes" : "no");
            for (std::size_t i = 0; i < parser.header_count(); ++i)
                std::printf("  %.*s = %.*s\n", static_cast<int>(parser.header(i).name.size()),
                            parser.header(i).name.data(), static_cast<int>(parser.header(i).value.size()),
                            parser.header(i).value.data());
        } else if (r.event == mb::parse_event::complete) {
            std::printf("  complete: %llu body bytes\n", static_cast<unsigned long long>(parser.body_bytes()));
            if (bytes.empty()) return 0;
            parser.reset(head);
        } else if (r.event == mb::parse_event::error) {
            if (!parser.started()) return count ? 0 : 1;  // the connection simply ended
            mb::error e = parser.last_error();
            std::printf("error: %s (%s) at byte %zu of response %d\n", e.message(), e.name(), e.position, count + 1);
            return 1;
        }
    }
}

const char* usage_text =
    "usage: microbench-inspect [-m METHOD] [-H 'Name: value']... [-p BODY_FILE] [-T TYPE] [-c] URL "
    "[RESPONSE_FILE | -]\n"
    "  Prints the parsed URL and the exact request microbench sends for it; given a raw response (a\n"
    "  file, or - for stdin), how each response in it is read, or the error and its byte. Opens no socket.\n"
    "  -m METHOD  -H 'Name: value'  -p BODY_FILE (POST)  -T TYPE  as microbench's; -c: no keep-alive\n"
    "  -h, --help this text\n";

int usage(const char* why) {
    std::fprintf(stderr, "microbench-inspect: %s\n%s", why, usage_text);
    return 2;
}

}  // namespace

int main(int argc, char** argv) {
    mb::request_options options;
    const char* url_text = nullptr;
    const char* response_path = nullptr;
    for (int i = 1; i < argc; ++i) {
        std::string_view a = argv[i];
        bool has_value = i + 1 < argc;
        if (a == "-h" || a == "--help") {
            std::fputs(usage_text, stdout);
            return 0;
        }
        if ((a == "-m" || a == "-H" || a == "-p" || a == "-T") && !has_value) return usage("option needs a value");
        if (a.size() > 1 && a[0] == '-' && a != "-m" && a != "-H" && a != "-p" && a != "-T" && a != "-c")
            return usage(("unknown option '" + std::string(a) + "'").c_str());
        if (a == "-m") {
            options.method = argv[++i];
        } else if (a == "-H") {
            mb::header h;
            if (mb::error e = mb::parse_header_line(argv[++i], h)) return usage(e.message());
            options.headers.push_back(h);
        } else if (a == "-p") {
            if (!read_file(argv[++i], options.body)) return usage("cannot read the body file");
            if (options.method == "GET") options.method = "POST";
        } else if (a == "-T") {
            options.content_type = argv[++i];
        } else if (a == "-c") {
            options.keep_alive = false;
        } else if (!url_text) {
            url_text = argv[i];
        } else if (!response_path) {
            response_path = argv[i];
        } else {
            return usage("too many arguments");
        }
    }
    if (!url_text) return usage("no URL given");

    mb::url target;
    if (mb::error e = mb::parse_url(url_text, target)) {
        std::fprintf(stderr, "microbench-inspect: bad URL '%s': %s (at byte %zu)\n", url_text, e.message(), e.position);
        return 2;
    }
    std::printf("host %s%s, port %u, target %s\n", target.host.c_str(), target.host_is_ipv6 ? " (IPv6)" : "",
                static_cast<unsigned>(target.port), target.target.c_str());
    std::string request;
    if (mb::error e = mb::build_request(target, options, request)) {
        std::fprintf(stderr, "microbench-inspect: %s (header #%zu)\n", e.message(), e.position + 1);
        return 2;
    }
    std::printf("request (%zu bytes):\n", request.size());
    print_escaped(request);
    if (!response_path) return 0;

    std::string response;
    if (!read_file(response_path, response)) return usage("cannot read the response file");
    return inspect_responses(response, options.method == "HEAD");
}

// microbench.hpp — the whole microbench C++ library: include this and nothing else.
// Header-only; each part under microbench/ has one job and says so in its first lines.
#pragma once

#include "microbench/version.hpp"
#include "microbench/config.hpp"
#include "microbench/error.hpp"
#include "microbench/ascii.hpp"
#include "microbench/url.hpp"
#include "microbench/request.hpp"
#include "microbench/chunked_decoder.hpp"
#include "microbench/response_parser.hpp"
#include "microbench/histogram.hpp"
#include "microbench/histogram_codec.hpp"

# Load-test and check an endpoint from Python, in-process, with nothing but the standard library.
import microbench

with microbench.Server() as server:  # or any http:// URL of yours
    r = microbench.run(server.url("/factorial/20"), n=2000, c=20, check_factorial=20)
    total = r.timings["total"]
    print(f"{r.completed} correct of {r.ended}, {r.requests_per_second:.0f} req/s, "
          f"p50 {total.p50_ms:.3f} ms, p99 {total.p99_ms:.3f} ms")
    assert r.completed == 2000 and r.failed == 0

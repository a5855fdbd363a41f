// The C# binding at a fixed rate, checked against what the schedule decided rather than against the
// clock, under de-DE:
// - Poisson arrivals, 500 requests/s for 1 s over 4 connections, seed 9, rows every 250 ms: the
//   schedule's arrivals before the end (those of schedule.hpp's generator for seed 9) are each sent
//   or counted missed, and the rows add up to the totals; the HTML report draws the run;
// - evenly spaced, 100 requests/s for 0.5 s on one connection the server holds 50 ms: 50 are due,
//   at most 10 can go out, the rest are missed, and every one after the first waited for the connection.
using System.Globalization;
using Microbench;
using Xunit;

namespace Microbench.Tests;

public sealed class OpenModelTests(ServerFixture fixture) : DeDeTest, IClassFixture<ServerFixture>
{
    [Fact]
    public void PoissonArrivalsAreSentOrMissedAndRowsAddUp()
    {
        Check("the culture is de-DE:", (1.5).ToString("F1") == "1,5");  // so the checks below would see a culture leak
        using var plan = new Plan(fixture.Server.Url("/factorial/10"))
        {
            Duration = TimeSpan.FromSeconds(1), Concurrency = 4, KeepAlive = true, Rate = 500, Interval = TimeSpan.FromMilliseconds(250),
        };
        plan.SetArrivals(Arrivals.Poisson, seed: 9);
        var r = plan.Run();

        ulong ended = 0, completed = 0, sent = 0;
        foreach (var row in r.Intervals) { ended += row.Ended; completed += row.Completed; sent += row.Sent; }
        ulong due = PoissonArrivalsBefore(9, 1e9 / 500, 1_000_000_000);
        Check("Poisson: every arrival before the end sent or missed:", due != 500 && r.Ended + r.Unfinished + r.ScheduleMissed == due,
              $"{r.Ended} + {r.Unfinished} + {r.ScheduleMissed} missed, the schedule's {due} (evenly spaced: 500)");
        // Rows at 0, 0.25, 0.5 and 0.75 s, the last one ending with the run; when a busy machine is still
        // receiving at 1 s, rows of that drain follow, in which nothing is sent.
        Check("rows at 0, 0.25, 0.5, 0.75 s:", r.Intervals.Count >= 4 && Math.Abs(r.Intervals[3].StartSeconds - 0.75) < 1e-6 &&
              r.Intervals.SkipLast(1).All(row => Math.Abs(row.DurationSeconds - 0.25) < 1e-6) &&
              r.Intervals.Skip(4).All(row => row.StartSeconds >= 1.0 - 1e-9 && row.Sent == 0), $"{r.Intervals.Count} rows");
        Check("rows add up:", ended == r.Ended && completed == r.Completed && sent == r.Ended + r.Unfinished);
        Check("every completed request timed from its intended time:", r.Response.Count == r.Completed && r.ScheduleLag.Count == r.Completed &&
              r.Failed == 0 && r.ConnectionWaits <= sent, Inv($"{r.Response.Count}, {r.ScheduleLag.Count} of {r.Completed}; {r.ConnectionWaits} waits"));
        Check("the schedule's target per row, a count and per second:", r.Intervals[0].TargetRequests == 125 &&
              Math.Abs(r.Intervals[0].TargetPerSecond - 500) < 1e-9, Inv($"{r.Intervals[0].TargetRequests}, {r.Intervals[0].TargetPerSecond}"));

        var page = Report.Html(new[] { r }, new[] { "poisson" }, "C# & HTML");
        Check("the HTML report:", page.StartsWith("<!DOCTYPE html>") && page.Contains("<title>C# &amp; HTML</title>") &&
              page.Contains(Inv($"<th scope=\"row\">Complete requests</th><td>{r.Ended}</td>")) &&
              page.Contains(Inv($"poisson p99: {r.Response.P99Ms:F3} ms")) && page.Contains("throughput over time") && !page.Contains("<script"));
    }

    // One connection held 50 ms by the server: the k-th request (from 0) cannot leave before k × 50 ms,
    // and nothing leaves at or after 0.5 s, so at most 10 of the 50 due go out.
    [Fact]
    public void AHeldConnectionMakesRequestsWaitOrMiss()
    {
        using var held = new Plan(fixture.Server.Url("/delay/50")) { Duration = TimeSpan.FromMilliseconds(500), Concurrency = 1, Rate = 100 };
        var h = held.Run();
        ulong went = h.Ended + h.Unfinished;
        Check("a held connection: 50 due, sent or missed:", went + h.ScheduleMissed == 50 && went >= 1 && went <= 10,
              Inv($"{went} sent, {h.ScheduleMissed} missed"));
        Check("a held connection: every request after the first waited for it:", h.ConnectionWaits == went - 1,
              Inv($"{h.ConnectionWaits} waits of {went} sent"));
        Check("a held connection: response times from the intended time, at least the server's 50 ms:",
              h.Completed == h.Ended && h.Response.MinMs >= 50 && h.Response.MaxMs >= h.Total.MaxMs, Inv($"{h.Response.MinMs} ms"));
    }

    [Fact]
    public void OutOfRangeKnobsAndBadDocumentsThrowWithTheirStatus()
    {
        using var plan = new Plan(fixture.Server.Url("/factorial/10"));
        var interval = Assert.Throws<MicrobenchException>(() => plan.Interval = TimeSpan.FromMilliseconds(5));  // below the 10 ms floor
        Assert.Equal("plan_bad_interval", interval.Name);
        var document = Assert.Throws<MicrobenchException>(() => Report.HtmlFromJson(new[] { "{\"microbench\": \"0.1.0\"}" }));
        Assert.Equal("result_bad_field", document.Name);
    }

    // How many intended send times worker 0's Poisson schedule (include/microbench/engine/schedule.hpp)
    // puts before endNs in an unsharded run seeded `seed`: its stream's seed hashes the run's seed, the
    // shard and the worker (stream_seed); SplitMix64, exponential gaps of mean gapNs, the same doubles
    // and the same libm log. Change it with the generator.
    private static ulong PoissonArrivalsBefore(ulong seed, double gapNs, long endNs)
    {
        static ulong Mix64(ulong z)
        {
            z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9UL;
            z = (z ^ (z >> 27)) * 0x94D049BB133111EBUL;
            return z ^ (z >> 31);
        }
        ulong state = Mix64(Mix64(seed ^ 0x6A09E667F3BCC909UL) ^ 0UL);
        double Gap()
        {
            ulong z = Mix64(state += 0x9E3779B97F4A7C15UL);
            return -Math.Log(((z >> 11) + 1) * (1.0 / 9007199254740992.0)) * gapNs;  // u in (0, 1], 2^-53 apart
        }
        double at = Gap();
        ulong count = 0;
        for (; (long)at < endNs; at += Gap()) ++count;
        return count;
    }
}

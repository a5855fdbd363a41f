// The C# binding at a fixed rate: 500 requests/s for 1 s over 4 connections, Poisson arrivals,
// rows every 250 ms. Exit 0 only if the rows add up to the totals and the rate was held, and the
// HTML report of the run draws it (its count, its p99, its intervals) and refuses a bad document.
using Microbench;

using var server = new Server();
using var plan = new Plan(server.Url("/factorial/10"))
{
    Requests = 0, Duration = TimeSpan.FromSeconds(1), Concurrency = 4, KeepAlive = true,
    Rate = 500, Interval = TimeSpan.FromMilliseconds(250),
};
plan.SetArrivals(Arrivals.Poisson, seed: 9);
var r = plan.Run();

ulong ended = 0, completed = 0, sent = 0;
foreach (var row in r.Intervals) { ended += row.Ended; completed += row.Completed; sent += row.Sent; }
Console.WriteLine($"{r.Intervals.Count} intervals; ended {ended} of {r.Ended}, completed {completed} of {r.Completed}, " +
                  $"sent {sent} = {r.Ended} + {r.Unfinished} unfinished; response p99 {r.Response.P99Ms:F3} ms");
// Rows at 0, 0.25, 0.5 and 0.75 s, the last one ending with the run; when a busy machine is still
// receiving at 1 s, rows of that drain follow, in which nothing is sent.
bool whole = r.Intervals.Count >= 4 && Math.Abs(r.Intervals[3].StartSeconds - 0.75) < 1e-6 &&
             r.Intervals.SkipLast(1).All(row => Math.Abs(row.DurationSeconds - 0.25) < 1e-6) &&
             r.Intervals.Skip(4).All(row => row.StartSeconds >= 1.0 - 1e-9 && row.Sent == 0);
bool ok = whole && ended == r.Ended && completed == r.Completed && sent == r.Ended + r.Unfinished &&
          r.Response.Count == r.Completed && r.Failed == 0 && r.Ended >= 400 && r.Ended <= 600 &&
          Math.Abs(r.Intervals[0].Target - 125) < 0.01;
try
{
    plan.Interval = TimeSpan.FromMilliseconds(5);
    ok = false;  // 5 ms is below the 10 ms floor: the setter must refuse it
}
catch (MicrobenchException e) when (e.Name == "invalid_argument") { }
var page = Report.Html(new[] { r }, new[] { "poisson" }, "C# & HTML");
ok = ok && page.StartsWith("<!DOCTYPE html>") && page.Contains("<title>C# &amp; HTML</title>") &&
     page.Contains($"<th scope=\"row\">Complete requests</th><td>{r.Ended}</td>") &&
     page.Contains($"poisson p99: {r.Response.P99Ms:F3} ms") && page.Contains("throughput over time") && !page.Contains("<script");
try
{
    Report.HtmlFromJson(new[] { "{\"microbench\": \"0.1.0\"}" });
    ok = false;
}
catch (MicrobenchException e) when (e.Name == "result_bad_field") { }
Console.WriteLine(ok ? "open model: ok" : "open model: FAILED");
return ok ? 0 : 1;

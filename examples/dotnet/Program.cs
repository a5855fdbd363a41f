// microbench from C#: `dotnet run -c Release --project examples/dotnet -- URL N C` runs N requests
// over C connections and prints the counts and percentiles. Without a URL it starts the
// reference server in-process and checks that it answered exactly N requests (exit 1 if not).
using Microbench;

string? url = args.Length > 0 ? args[0] : null;
ulong n = args.Length > 1 ? ulong.Parse(args[1]) : 1000;
uint c = args.Length > 2 ? uint.Parse(args[2]) : 10;

using var server = url is null ? new Server() : null;
using var plan = new Plan(url ?? server!.Url("/factorial/10")) { Requests = n, Concurrency = c, KeepAlive = true };
if (server is not null) plan.CheckFactorial = 10;
var r = plan.Run();

Console.WriteLine($"libmicrobench {Library.Version}: {r.Completed} completed, {r.Failed} failed of {r.Ended} " +
                  $"in {r.ElapsedSeconds:F3} s ({r.RequestsPerSecond:F0} requests/s)");
Console.WriteLine($"total ms: min {r.Total.MinMs:F3}  p50 {r.Total.P50Ms:F3}  p90 {r.Total.P90Ms:F3}  " +
                  $"p99 {r.Total.P99Ms:F3}  p99.9 {r.Total.P999Ms:F3}  max {r.Total.MaxMs:F3}");
if (server is not null)
{
    Console.WriteLine($"server answered {server.Requests}");
    return r.Completed == n && r.Failed == 0 && server.Requests == n ? 0 : 1;
}
return 0;

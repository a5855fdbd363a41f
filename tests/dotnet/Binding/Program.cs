// The C# binding's own checks against the reference server, each exact: a handle the caller forgot
// to dispose is released when collected. Prints one line per failed check and "binding: ok" (exit 0)
// only if every check held.
using System.Runtime.CompilerServices;
using Microbench;

var failed = new List<string>();
void Check(string what, bool ok, string detail = "")
{
    if (!ok) failed.Add($"{what} {detail}");
}

// A Server nobody disposed stops when the collector finalizes it: its port then refuses.
ushort port = Forgotten.Start();
GC.Collect();
GC.WaitForPendingFinalizers();
GC.Collect();
using (var plan = new Plan($"http://127.0.0.1:{port}/") { Requests = 5 })
{
    var r = plan.Run();
    Check("a forgotten server is stopped:", r.Failures[Failure.Connect] == 5, $"{r.Completed} of 5 answered");
}

// Server.Url names the host the server listens on, an IPv6 address in brackets.
foreach (string host in new[] { "127.0.0.1", "::1" })
{
    using var server = new Server(host);
    string url = server.Url("/factorial/5");
    string expected = host.Contains(':') ? $"http://[{host}]:{server.Port}/factorial/5" : $"http://{host}:{server.Port}/factorial/5";
    Check($"Url on {host}:", url == expected, url);
    using var plan = new Plan(url) { Requests = 20, Concurrency = 2, CheckFactorial = 5 };
    var r = plan.Run();
    Check($"a run against {url}:", r.Completed == 20 && server.Requests == 20, $"{r.Completed} completed, server answered {server.Requests}");
}

foreach (var line in failed) Console.WriteLine($"FAILED: {line}");
Console.WriteLine(failed.Count == 0 ? "binding: ok" : "binding: FAILED");
return failed.Count == 0 ? 0 : 1;

static class Forgotten
{
    [MethodImpl(MethodImplOptions.NoInlining)]
    public static ushort Start() => new Server().Port;  // never disposed
}

// The C# binding's own checks against the reference server (xunit; run by tests/dotnet/run_dotnet.sh
// with `dotnet test`), each exact: a handle the caller forgot to dispose is released when collected;
// Url; callbacks, and one that throws stopping the run; cancel; checks, shards, drain, start time,
// validation; the fields against the result's JSON; HdrHistogram logs; the suite; https:// against
// .NET's own SslStream; all under de-DE.
using System.Globalization;
using System.Runtime.CompilerServices;
using System.Text;
using System.Text.Json;
using Microbench;
using Xunit;

namespace Microbench.Tests;

public sealed class BindingTests(ServerFixture fixture) : DeDeTest, IClassFixture<ServerFixture>
{
    private Server Shared => fixture.Server;

    // A Server nobody disposed stops when the collector finalizes it: its port then refuses.
    [Fact]
    public void AForgottenServerIsStoppedByTheFinalizer()
    {
        ushort port = Forgotten.Start();
        GC.Collect();
        GC.WaitForPendingFinalizers();
        GC.Collect();
        using var plan = new Plan($"http://127.0.0.1:{port}/") { Requests = 5 };
        var r = plan.Run();
        Check("a forgotten server is stopped:", r.Failures[Failure.Connect] == 5, $"{r.Completed} of 5 answered");
    }

    // Server.Url names the host the server listens on, an IPv6 address in brackets.
    [Fact]
    public void UrlNamesTheHost()
    {
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
    }

    // --connect-to: a name nothing resolves, reached at the shared server; a bad rule refused.
    [Fact]
    public void ConnectToReachesANameAtAnAddress()
    {
        using var plan = new Plan("http://microbench.invalid:81/factorial/5") { Requests = 4, CheckFactorial = 5 };
        plan.AddConnectTo($"microbench.invalid:81:127.0.0.1:{Shared.Port}");
        var r = plan.Run();
        Check("connected:", r.Completed == 4 && r.ConnectedTo == $"127.0.0.1:{Shared.Port}", $"{r.Completed}, {r.ConnectedTo}");
        var e = Assert.Throws<MicrobenchException>(() => plan.AddConnectTo("a:x:b:1"));
        Check("a bad rule:", e.Name == "plan_bad_connect_to", e.Name);
    }

    // The server's limits: a half-sent request closed at its header timeout, a silent connection at its idle timeout,
    // each counted; a negative timeout refused.
    [Fact]
    public void ServerLimitsCloseSlowClients()
    {
        Assert.Throws<ArgumentOutOfRangeException>(() => new Server(limits: new ServerLimits { HeaderTimeout = TimeSpan.FromSeconds(-1) }));
        using var server = new Server(limits: new ServerLimits
        {
            HeaderTimeout = TimeSpan.FromMilliseconds(200), IdleTimeout = TimeSpan.FromMilliseconds(400),
        });
        using var half = new System.Net.Sockets.TcpClient("127.0.0.1", server.Port);
        half.GetStream().Write("GET /factorial/5 HTTP/1.1\r\nHost: x"u8);
        using var silent = new System.Net.Sockets.TcpClient("127.0.0.1", server.Port);
        var until = DateTime.UtcNow.AddSeconds(5);
        while (DateTime.UtcNow < until && server.Count(ServerCount.HeaderTimeouts) + server.Count(ServerCount.IdleTimeouts) < 2)
            Thread.Sleep(10);
        Check("closed and counted:", server.Count(ServerCount.HeaderTimeouts) == 1 && server.Count(ServerCount.IdleTimeouts) == 1 &&
              server.Count(ServerCount.Connections) == 2 && server.Count(ServerCount.Open) == 0,
              $"{server.Count(ServerCount.HeaderTimeouts)} header, {server.Count(ServerCount.IdleTimeouts)} idle, " +
              $"{server.Count(ServerCount.Connections)} connections, {server.Count(ServerCount.Open)} open");
        Check("the half-sent one sees the end:", half.GetStream().Read(new byte[1]) == 0, "");
    }

    // A Unix socket: the reference server on one, a plan over it; the file goes with the server; a NUL refused.
    [Fact]
    public void UnixSocketCarriesTheRun()
    {
        string path = Path.Combine(Path.GetTempPath(), $"microbench-cs-{Environment.ProcessId}.sock");
        using (var server = Server.OnUnixSocket(path, threads: 2))
        {
            Check("its port:", server.Port == 0 && server.UnixSocket == path, $"{server.Port}");
            using var plan = new Plan(server.Url("/factorial/5")) { Requests = 20, Concurrency = 2, CheckFactorial = 5, UnixSocket = path };
            var r = plan.Run();
            Check("over the socket:", r.Completed == 20 && r.ConnectedTo == "unix:" + path && r.BacklogWaits == 0,
                  $"{r.Completed}, {r.ConnectedTo}");
            Check("served:", server.Requests == 20, $"{server.Requests}");
            var live = Assert.Throws<MicrobenchException>(() => Server.OnUnixSocket(path));
            Check("a live one refused:", live.Name == "run_system", live.Name);
            Assert.Throws<ArgumentException>(() => plan.UnixSocket = "a\0b");
            var tooLong = Assert.Throws<MicrobenchException>(() => plan.UnixSocket = new string('x', 108));
            Check("too long:", tooLong.Name == "plan_bad_unix_socket", tooLong.Name);
        }
        Check("removed:", !File.Exists(path), path);
    }

    // Stages: a ramp and a hold; each stage's row adds up to the run; a bad stage refused.
    [Fact]
    public void StagesRampAndHold()
    {
        using var plan = new Plan(Shared.Url("/factorial/5")) { Requests = 0, Concurrency = 4, Rate = 100 };
        plan.AddStage(TimeSpan.FromMilliseconds(300), 500);
        plan.AddStage(TimeSpan.FromMilliseconds(200), 500);
        var r = plan.Run();
        Check("two stages:", r.Stages.Count == 2 && r.Stages[1].FromPerSecond == 500 && Math.Abs(r.Stages[0].Intended - 90) < 0.01,
              $"{r.Stages.Count}");
        ulong sent = 0;
        foreach (var s in r.Stages) sent += s.Sent;
        Check("every request in a stage:", sent == r.Ended + r.Unfinished, $"{sent} vs {r.Ended} + {r.Unfinished}");
        var e = Assert.Throws<MicrobenchException>(() => plan.AddStage(TimeSpan.FromSeconds(1), -1));
        Check("a bad stage:", e.Name == "plan_bad_stages", e.Name);
    }

    // The request callback: what it writes is sent, checked under the target it names; 0 stops; an overflow
    // throws; the room is bounded.
    [Fact]
    public void OnRequestWritesEachRequest()
    {
        // /factorial/<index mod 10>, counted under that n's target: the check of each target's n checks what was written.
        var indices = new System.Collections.Concurrent.ConcurrentDictionary<ulong, int>();
        using (var plan = new Plan(Shared.Url("/factorial/{0..9}")) { Requests = 100, Concurrency = 4, Threads = 2, UrlRanges = true })
        {
            plan.CheckFactorialOfEachTarget();
            plan.RequestCapacity = 256;
            plan.OnRequest = (Span<byte> room, ulong index, ref uint target, ReadOnlySpan<byte> prepared) =>
            {
                indices.AddOrUpdate(index, 1, (_, seen) => seen + 1);
                target = (uint)(index % 10);
                int host = prepared.IndexOf("\r\nHost: "u8);
                int n = Encoding.ASCII.GetBytes($"GET /factorial/{target} HTTP/1.1", room);
                prepared[host..].CopyTo(room[n..]);
                return n + prepared.Length - host;
            };
            var r = plan.Run();
            Check("written:", r.Completed == 100 && r.Failed == 0 && r.RequestFnFaults == 0 && r.FactorialVerdict == "right for n = 0..9",
                  $"{r.Completed}, {r.Failed}, {r.RequestFnFaults}, {r.FactorialVerdict}");
            Check("each index once:", indices.Count == 100 && indices.Values.All(v => v == 1), $"{indices.Count}");
            // 0 stops the worker; a length past the room throws from Run().
            int calls = 0;
            plan.OnRequest = (Span<byte> room, ulong index, ref uint target, ReadOnlySpan<byte> prepared) => 0;
            r = plan.Run();
            Check("0 sends no more:", r.Ended == 0 && r.RequestFnFaults == 0, $"{r.Ended}");
            plan.OnRequest = (Span<byte> room, ulong index, ref uint target, ReadOnlySpan<byte> prepared) =>
            {
                Interlocked.Increment(ref calls);
                return room.Length + 1;
            };
            Assert.Throws<InvalidOperationException>(() => plan.Run());
            Check("stopped at the first:", calls >= 1 && calls <= 2, $"{calls}");
            Assert.Throws<ArgumentOutOfRangeException>(() => plan.RequestCapacity = 8);
            plan.RequestCapacity = 1 << 20;
            plan.Concurrency = 1100;  // 1,100 rooms of 1 MiB: past 1 GiB
            plan.Requests = 1100;
            plan.OnRequest = (Span<byte> room, ulong index, ref uint target, ReadOnlySpan<byte> prepared) => 0;
            var e = Assert.Throws<MicrobenchException>(() => plan.Run());
            Check("rooms past 1 GiB:", e.Name == "plan_bad_request_capacity", e.Name);
        }
    }

    // Targets: a range with each answer checked against its own n and every target counted; a list each
    // once at random; a targets file, and one with a fault named by its line.
    [Fact]
    public void TargetsEachNAndByTarget()
    {
        using (var plan = new Plan(Shared.Url("/factorial/{0..30}")) { Requests = 62, Concurrency = 2, UrlRanges = true, ByTarget = true })
        {
            plan.CheckFactorialOfEachTarget();
            var r = plan.Run();
            Check("a range of n:", r.Completed == 62 && r.FactorialVerdict == "right for n = 0..30", $"{r.Completed}, {r.FactorialVerdict}");
            Check("each target's row:", r.Targets.Count == 31 && r.Targets.All(t => t.Requests == 2 && t.Completed == 2 && t.P50Ms > 0),
                  string.Join(",", r.Targets.Select(t => $"{t.Target}={t.Requests}")));
            Check("nothing folded:", r.TargetsFolded is { Index: 0, Requests: 0 }, $"{r.TargetsFolded}");
        }
        using (var plan = new Plan(Shared.Url("/")) { Concurrency = 2, EachOnce = true, ByTarget = true })
        {
            foreach (int n in new[] { 3, 4, 5 }) plan.AddTarget(Shared.Url($"/factorial/{n}"));
            plan.AddTarget(Shared.Url("/factorial/6"), "GET");
            plan.SetOrder(TargetOrder.Random, 3);
            plan.CheckFactorialOfEachTarget();
            var r = plan.Run();
            Check("each once:", r.Completed == 4 && r.Targets.All(t => t.Requests == 1) && r.FactorialVerdict == "right for n = 3..6",
                  $"{r.Completed}, {r.FactorialVerdict}");
        }
        string path = Path.GetTempFileName();
        try
        {
            File.WriteAllText(path, $"GET {Shared.Url("/factorial/7")}\n\nGET {Shared.Url("/factorial/8")}\n");
            using var plan = new Plan(Shared.Url("/")) { Requests = 4 };
            plan.SetTargetsFile(path);
            plan.CheckFactorialOfEachTarget();
            var r = plan.Run();
            Check("a targets file:", r.Completed == 4 && r.FactorialVerdict == "right for n = 7..8", $"{r.Completed}, {r.FactorialVerdict}");
            File.WriteAllText(path, $"GET {Shared.Url("/factorial/7")}\nnot a header\n");
            var e = Assert.Throws<MicrobenchException>(() => plan.SetTargetsFile(path));
            Check("a fault's line:", e.Name == "targets_bad_line" && e.Message.Contains($"{path}:2:1:"), e.Message);
        }
        finally
        {
            File.Delete(path);
        }
    }

    // A duration and no count means no count limit (like ab's -t, which the command line follows). At
    // a fixed rate the schedule decides how many requests were due before the end — 0, 10, ..., 390 ms:
    // 40 — each sent or counted missed, however busy the machine; a count with a duration keeps both.
    [Fact]
    public void ADurationWithoutACountHasNoCountLimit()
    {
        foreach (var (requests, first, expected) in new (ulong?, bool, ulong)[] { (null, false, 40), (5, true, 5), (5, false, 5) })
        {
            string what = $"a 0.4 s duration, requests {requests?.ToString() ?? "unset"}{(first ? " set first" : "")}:";
            try
            {
                using var plan = new Plan(Shared.Url("/factorial/5"));
                if (requests is ulong n && first) plan.Requests = n;
                plan.Duration = TimeSpan.FromMilliseconds(400);
                if (requests is ulong m && !first) plan.Requests = m;
                plan.Concurrency = 2;
                plan.Rate = 100;
                var r = plan.Run();
                Check(what, r.Ended + r.Unfinished + r.ScheduleMissed == expected, $"{r.Ended} + {r.Unfinished} + {r.ScheduleMissed} missed");
            }
            catch (MicrobenchException e)
            {
                Check(what, false, e.Message);
            }
        }
    }

    // Callbacks: on_response sees every whole response and can fail it; progress comes on this thread.
    [Fact]
    public void CallbacksSeeResponsesAndProgress()
    {
        ulong seen = 0;
        var threads = new HashSet<int>();
        using var plan = new Plan(Shared.Url("/factorial/5"))
        {
            Requests = 200, Concurrency = 2, Threads = 2,
            OnResponse = (status, bodyBytes) => Interlocked.Increment(ref seen) % 2 == 0 || status != 200,  // fails every other one
        };
        var r = plan.Run();
        Check("OnResponse:", seen == 200 && r.Failures[Failure.Check] == 100 && r.Completed == 100, $"{seen} seen, {r.Failures[Failure.Check]} failed");
        using var slow = new Plan(Shared.Url("/delay/5")) { Requests = 60, Concurrency = 2, OnProgress = (e, t, s) => threads.Add(Environment.CurrentManagedThreadId) };
        slow.Run();
        Check("OnProgress on the calling thread:", threads.Count == 1 && threads.Contains(Environment.CurrentManagedThreadId), string.Join(",", threads));
        var counts = new List<ulong>();
        using var byCount = new Plan(Shared.Url("/delay/5"))
        {
            Requests = 200, Concurrency = 2, ProgressEvery = TimeSpan.Zero, ProgressEveryRequests = 50, OnProgress = (e, t, s) => counts.Add(e),
        };
        byCount.Run();
        Check("progress by count only:", counts.Count >= 1 && counts.Select((e, i) => e >= 50 * (ulong)(i + 1)).All(x => x), string.Join(",", counts));
    }

    // Times go to the C API as whole milliseconds, rounded: a positive one is at least 1 ms (a tick of Duration was 0 ms,
    // "no time limit", and the run was refused); a negative one is refused where it is set.
    [Fact]
    public void TimesRoundToMillisecondsAndNegativeOnesAreRefused()
    {
        using var plan = new Plan(Shared.Url("/factorial/5")) { Duration = TimeSpan.FromTicks(1) };
        var r = plan.Run();
        Check("a 1-tick duration runs 1 ms:", !r.Cancelled && r.ElapsedSeconds < 5, $"{r.ElapsedSeconds}");
        Assert.Throws<ArgumentOutOfRangeException>(() => plan.ProgressEvery = TimeSpan.FromMilliseconds(-1));
        Assert.Throws<ArgumentOutOfRangeException>(() => plan.Interval = TimeSpan.FromMilliseconds(-1));
        Assert.Throws<ArgumentOutOfRangeException>(() => plan.Timeout = TimeSpan.FromMilliseconds(-5));
        var refused = Assert.Throws<MicrobenchException>(() => plan.Interval = TimeSpan.FromMilliseconds(9.4));  // 9 ms: below 10
        Check("9.4 ms rounds to 9, below the range:", refused.Name == "plan_bad_interval", refused.Name);
        plan.Interval = TimeSpan.FromMilliseconds(9.6);  // rounds to 10 ms, was cut to 9 and refused
    }

    // A callback that throws stops the run and Run() throws that very exception; it is not called again.
    [Fact]
    public void ACallbackThatThrowsStopsTheRun()
    {
        foreach (string kind in new[] { "interval", "progress", "response" })
        {
            int calls = 0, stopAt = kind == "interval" ? 1 : kind == "progress" ? 2 : 3;
            var stop = new InvalidOperationException(kind);
            bool Call()
            {
                if (++calls == stopAt) throw stop;
                return true;
            }
            ulong before = Shared.Requests, planned = 2000;
            using var plan = new Plan(Shared.Url(kind == "interval" ? "/factorial/5" : "/delay/5")) { Requests = planned, Concurrency = 2 };
            if (kind == "interval")
            {
                plan.Requests = 0;
                plan.Duration = TimeSpan.FromSeconds(10);
                plan.Rate = 100;
                plan.Interval = TimeSpan.FromMilliseconds(50);
                plan.OnInterval = row => Call();
                planned = 1000;
            }
            else if (kind == "progress") plan.OnProgress = (e, t, s) => Call();
            else plan.OnResponse = (status, bytes) => Call();
            Exception? thrown = null;
            try
            {
                plan.Run();
            }
            catch (Exception e)
            {
                thrown = e;
            }
            Check($"a throwing On{kind} stops the run:", ReferenceEquals(thrown, stop) && calls == stopAt && Shared.Requests - before < planned,
                  $"{thrown?.GetType().Name}, {calls} calls, {Shared.Requests - before} of {planned} sent");
        }
    }

    // Cancel: from another thread, and one triggered before the run.
    [Fact]
    public void CancelStopsARun()
    {
        var cancel = new Cancel();
        using var plan = new Plan(Shared.Url("/delay/50")) { Requests = 100000, Concurrency = 4, Cancel = cancel };
        using var timer = new Timer(_ => cancel.Trigger(), null, 300, Timeout.Infinite);
        var r = plan.Run();
        Check("Cancel from another thread:", r.Cancelled && r.Ended + r.Unfinished < 100000, $"cancelled {r.Cancelled}, {r.Ended} ended");
        var early = new Cancel();
        early.Trigger();
        plan.Cancel = early;
        r = plan.Run();
        Check("a Cancel triggered before the run:", r.Cancelled && r.Completed == 0, $"{r.Completed} completed");
    }

    // Bodies and checks: /echo answers the body it was sent.
    [Fact]
    public void BodiesAndChecks()
    {
        using var plan = new Plan(Shared.Url("/echo")) { Requests = 10, Concurrency = 2, Method = "POST" };
        plan.SetBody("hello, bench", "text/plain");
        plan.CheckBodyEquals("hello, bench");
        plan.CheckBodyStartsWith("hello");
        plan.CheckBodyContains(", b");
        var r = plan.Run();
        Check("body checks that hold:", r.Completed == 10 && r.BodyBytes == 120, $"{r.Completed} completed, {r.BodyBytes} bytes");
        plan.CheckBodyMatches("^hello, [a-z]+$");
        r = plan.Run();
        Check("a body regex that holds:", r.Completed == 10, $"{r.Completed} completed");
        plan.CheckBodyMatches("^bench");
        var bad = Assert.Throws<MicrobenchException>(() => plan.CheckBodyMatches("a(b"));
        Check("a regex that does not compile:", bad.Name == "plan_bad_regex" && bad.Message.EndsWith(": a '(' is not closed"),
              bad.Message);
        Assert.Throws<ArgumentException>(() => plan.CheckBodyMatches("a\0b"));
        r = plan.Run();  // "^bench" stayed through both refusals
        Check("a body regex that fails:", r.Failures[Failure.Check] == 10, $"{r.Failures[Failure.Check]} failed the check");
        using var contains = new Plan(Shared.Url("/echo")) { Requests = 10, Concurrency = 2, Method = "POST" };
        contains.SetBody("hello, bench", "text/plain");
        contains.CheckBodyContains("nope");
        r = contains.Run();
        Check("a body check that fails:", r.Failures[Failure.Check] == 10, $"{r.Failures[Failure.Check]} failed the check");
        using var statuses = new Plan(Shared.Url("/status/503")) { Requests = 3 };
        r = statuses.Run();
        Check("StatusCodes:", r.StatusCodes.Count == 1 && r.StatusCodes[503] == 3 && r.Non2xx == 3, string.Join(",", r.StatusCodes));
        statuses.ExpectStatus = new[] { 200 };
        r = statuses.Run();
        Check("ExpectStatus:", r.Failures[Failure.Check] == 3, $"{r.Failures[Failure.Check]} failed the check");
    }

    // The counters read one by one are the ones the JSON report writes; the latency table's figures are Timing's.
    [Fact]
    public void FieldsEqualTheJson()
    {
        using var plan = new Plan(Shared.Url("/factorial/5")) { Requests = 60, Concurrency = 3, KeepAlive = false };
        var r = plan.Run();
        using var json = JsonDocument.Parse(r.Json);
        var connections = json.RootElement.GetProperty("connections");
        Check("fields equal the JSON's:", r.Connects == 60 && r.ConcurrencyPeak == 3 && r.Connects == connections.GetProperty("connects").GetUInt64() &&
              r.ConcurrencyPeak == connections.GetProperty("peak").GetUInt64() && r.ServerCloses == connections.GetProperty("server_closes").GetUInt64() &&
              r.StatusCodes[200] == json.RootElement.GetProperty("status_codes").GetProperty("200").GetUInt64() &&
              r.ServerSoftware == json.RootElement.GetProperty("server_software").GetString() && r.DocumentLength == 17 && r.BodyBytes == 60 * 17,
              $"connects {r.Connects}, peak {r.ConcurrencyPeak}, document {r.DocumentLength}");
        var rows = r.LatencyReport.Split('\n').Where(l => l.StartsWith("  ")).ToDictionary(l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries)[0],
                                                                                         l => l.Split(' ', StringSplitOptions.RemoveEmptyEntries)[^1]);
        Check("LatencyReport:", rows["stddev"] == (r.Total.StddevMs * 1000).ToString("F1", CultureInfo.InvariantCulture) &&
              rows["p99"] == (r.Total.P99Ms * 1000).ToString("F1", CultureInfo.InvariantCulture), r.LatencyReport);
        Check("Hgrm:", r.Total.Hgrm.StartsWith("       Value   Percentile   TotalCount 1/(1-Percentile)\n\n") &&
              r.Total.Hgrm.Contains(" 1.000000           60          inf\n") && r.Total.Hgrm.Contains("Total count    =           60]\n"), r.Total.Hgrm);
    }

    // Interval histograms: in the JSON, and HdrHistogram's log with three rows an interval.
    [Fact]
    public void IntervalHistogramsAndHdrHistogramLogs()
    {
        using var plan = new Plan(Shared.Url("/factorial/5")) { Requests = 200, Concurrency = 2, Rate = 2000, Interval = TimeSpan.FromMilliseconds(25),
                                                                 IntervalHistograms = true };
        var r = plan.Run();
        var lines = r.Hlog.Split('\n');
        int Rows(string tag) => lines.Count(l => l.StartsWith(tag + ","));
        Check("Hlog:", r.Completed == 200 && lines[0].StartsWith("#[Logged with microbench ") && lines[1] == "#[Histogram log format version 1.3]" &&
              Rows("Tag=response") == r.Intervals.Count && Rows("Tag=service") == r.Intervals.Count && Rows("Tag=schedule_lag") == r.Intervals.Count &&
              r.Json.Contains("\"histograms\":{\"response\":\""), r.Hlog.Length > 300 ? r.Hlog[..300] : r.Hlog);
        using var without = new Plan(Shared.Url("/factorial/5")) { Requests = 20, Rate = 2000 };
        Check("Hlog without interval histograms:", without.Run().Hlog == "");
        using var closed = new Plan(Shared.Url("/factorial/5")) { Duration = TimeSpan.FromMilliseconds(1200), IntervalHistograms = true };
        var loop = closed.Run();
        Check("a closed loop's histograms alone: rows of 1 s and a log:", loop.Intervals.Count >= 1 && loop.Hlog.Contains("\nTag=total,"),
              $"{loop.Intervals.Count} rows");
        // Read back through the library: a tag per metric with the run's counts and percentiles; a second log in
        // UTF-16, as HdrHistogram.NET writes it, adds up; a line that is not a row says where.
        var tags = Hlog.Read(r.Hlog);
        var response = tags.Count == 3 ? tags[0] : null;
        Check("Hlog.Read:", response != null && string.Join(",", tags.Select(t => t.Tag)) == "response,service,schedule_lag" &&
              response.Count == 200 && response.Intervals == (ulong)r.Intervals.Count && tags[1].Count == 200 &&
              Equivalent(response.Percentiles[99], r.Response.P99Ms) && Equivalent(response.Percentiles[50], r.Response.P50Ms) &&
              Equivalent(tags[1].Percentiles[90], r.Total.P90Ms) && response.Hgrm.Contains("Total count    =          200]"),
              string.Join("; ", tags));
        var both = Hlog.Read([Encoding.UTF8.GetBytes(r.Hlog), [.. Encoding.Unicode.GetPreamble(), .. Encoding.Unicode.GetBytes(r.Hlog)]]);
        Check("Hlog.Read of two logs:", both[0].Count == 400 && both[0].Intervals == 2 * (ulong)r.Intervals.Count &&
              both[0].Percentiles[99] == response?.Percentiles[99], string.Join("; ", both));
        try
        {
            Hlog.Read(r.Hlog, "#[BaseTime: 0.000]\nTag=x,0.0,1.0\n");
            Check("Hlog.Read of a bad log throws:", false);
        }
        catch (MicrobenchException e)
        {
            Check("Hlog.Read of a bad log throws:", e.Name == "hlog_bad" && e.Message.StartsWith("hlog_bad: line 2: "), e.Message);
        }
        try
        {
            Hlog.Read([Encoding.UTF8.GetBytes(r.Hlog)], maxMemory: 1000);
            Check("Hlog.Read beyond maxMemory throws:", false);
        }
        catch (MicrobenchException e)
        {
            Check("Hlog.Read beyond maxMemory throws:", e.Name == "hlog_bad" && e.Message.Contains("line 6: its highest trackable value, ") &&
                  e.Message.Contains("above the reader's limit of 1000 bytes"), e.Message);
        }
        Check("Hlog.Read with a raised maxMemory:", Hlog.Read([Encoding.UTF8.GetBytes(r.Hlog)], maxMemory: 1UL << 30)[0].Count == 200);
    }

    // At a fixed rate each response time is the request's schedule lag plus its total time.
    [Fact]
    public void AtAFixedRateResponseIsLagPlusTotal()
    {
        using var plan = new Plan(Shared.Url("/delay?us=2000")) { Requests = 200, Concurrency = 4, Rate = 1000 };
        var r = plan.Run();
        Check("response = lag + total:", r.Completed == 200 && r.ScheduleLag.Count == 200 && r.Response.Count == 200 && r.Total.MinMs >= 2.0 &&
              Math.Abs(r.Response.MeanMs - (r.Total.MeanMs + r.ScheduleLag.MeanMs)) <= 1e-9 * r.Response.MeanMs && r.ScheduleMissed == 0,
              $"{r.Response.MeanMs} vs {r.Total.MeanMs} + {r.ScheduleLag.MeanMs}");
        // A batch lag of 2 ms at 5,000/s: ten requests a wake, each waiting for the last of its window.
        using var batched = new Plan(Shared.Url("/factorial/10")) { Requests = 200, Concurrency = 20, Rate = 5000, MaxBatchLag = TimeSpan.FromMilliseconds(2) };
        r = batched.Run();
        Check("a batch lag:", r.Completed == 200 && r.ScheduleLag.Count == 200 && r.ScheduleLag.MeanMs >= 0.3, $"{r.Completed} completed, lag {r.ScheduleLag.MeanMs} ms");
        string name = "accepted";
        try { batched.MaxBatchLag = TimeSpan.FromMilliseconds(11); } catch (MicrobenchException e) { name = e.Name; }
        Check("a batch lag out of range", name == "plan_bad_batch_lag", name);
    }

    // Shards, drain, start time, bind lists, the URL, validation.
    [Fact]
    public void ShardsDrainStartTimeBindListsValidation()
    {
        ulong before = Shared.Requests;
        using var plan = new Plan(Shared.Url("/factorial/5")) { Requests = 101, Concurrency = 8 };
        plan.Divide(1, 4);  // 101 = 26 + 25 + 25 + 25
        var r = plan.Run();
        Check("a shard's share:", r.Completed == 25 && r.Connects == 2 && Shared.Requests - before == 25, $"{r.Completed} completed over {r.Connects}");
        using var held = new Plan(Shared.Url("/delay/500")) { Requests = 0, Duration = TimeSpan.FromMilliseconds(100), Concurrency = 2, Drain = TimeSpan.Zero };
        r = held.Run();
        Check("no drain: cut off", r.Ended == 0 && r.Unfinished == 2, $"{r.Ended} ended, {r.Unfinished} unfinished");
        held.Drain = TimeSpan.FromSeconds(2);
        r = held.Run();
        Check("a drain: they end", r.Completed == 2 && r.Unfinished == 0, $"{r.Completed} completed, {r.Unfinished} unfinished");
        var startAt = DateTimeOffset.UtcNow.AddMilliseconds(300);
        using var later = new Plan(Shared.Url("/factorial/5")) { Requests = 4, Concurrency = 2, StartAt = startAt };
        r = later.Run();
        using (var json = JsonDocument.Parse(r.Json))
        {
            long asked = json.RootElement.GetProperty("config").GetProperty("start_at_unix_ms").GetInt64();
            long began = json.RootElement.GetProperty("start_unix_ms").GetInt64();
            Check("StartAt:", asked == startAt.ToUnixTimeMilliseconds() && began >= asked - 1 && r.Completed == 4, $"asked {asked}, began {began}");
        }
        using var other = new Server();
        using var sources = new Plan(Shared.Url("/factorial/5"))
        {
            Requests = 20, Concurrency = 2, KeepAlive = false, BindAddress = "127.0.0.1,127.0.0.2", SocketBufferBytes = 65536,
            ResendNonIdempotent = true, LengthCheck = false, RaiseFdLimit = false, Pipeline = 1, Timeout = TimeSpan.FromSeconds(5),
        };
        sources.Url = other.Url("/factorial/5");
        r = sources.Run();
        Check("Url, bind list:", r.Completed == 20 && r.Connects == 20 && other.Requests == 20, $"{r.Completed} completed, other answered {other.Requests}");
        before = Shared.Requests;
        sources.Validate();
        string Refused(Action a)
        {
            try
            {
                a();
                return "accepted";
            }
            catch (MicrobenchException e)
            {
                return e.Name;
            }
        }
        Check("Validate sends nothing:", Shared.Requests == before && other.Requests == 20);
        Check("a bad bind list:", Refused(() => { sources.BindAddress = "127.0.0.1,::1"; sources.Run(); }) == "plan_bad_bind_address");
        Check("a bad shard:", Refused(() => { using var p = new Plan(Shared.Url("/")) { Requests = 3 }; p.Divide(0, 4); }) == "plan_bad_shard");
        Check("a bad header:", Refused(() => { using var p = new Plan(Shared.Url("/")); p.AddHeader("Bad Name", "x"); p.Validate(); }) == "request_bad_header_name");
        Check("too few requests:", Refused(() => { using var p = new Plan(Shared.Url("/")) { Requests = 5, Concurrency = 10 }; p.Validate(); }) ==
              "plan_concurrency_above_requests");
    }

    // A listener whose accept queue is full drops the SYNs: connecting hangs until the connect timeout
    // (0.3 s), a connect failure long before the request timeout (60 s) would end it, and by causality
    // not sooner than 0.3 s.
    [Fact]
    public void AConnectTimeoutOfItsOwn()
    {
        using var listener = new System.Net.Sockets.Socket(System.Net.Sockets.SocketType.Stream, System.Net.Sockets.ProtocolType.Tcp);
        listener.Bind(new System.Net.IPEndPoint(System.Net.IPAddress.Loopback, 0));
        listener.Listen(0);
        int full = ((System.Net.IPEndPoint)listener.LocalEndPoint!).Port;
        var queued = Enumerable.Range(0, 3).Select(_ => new System.Net.Sockets.Socket(System.Net.Sockets.SocketType.Stream,
                                                                                       System.Net.Sockets.ProtocolType.Tcp) { Blocking = false }).ToList();
        foreach (var q in queued)
        {
            try { q.Connect(listener.LocalEndPoint!); } catch (System.Net.Sockets.SocketException) { }
        }
        using var plan = new Plan($"http://127.0.0.1:{full}/");
        plan.SetTimeouts(TimeSpan.FromSeconds(60), TimeSpan.FromMilliseconds(300));
        var r = plan.Run();
        foreach (var q in queued) q.Dispose();
        Check("SetTimeouts: connect", r.Failures[Failure.Connect] == 1 && r.ElapsedSeconds >= 0.3 && r.ElapsedSeconds < 60,
              $"{r.Failures[Failure.Connect]} connect failures after {r.ElapsedSeconds} s");
    }

    // The suite and the self-test, with their table and HTML report.
    [Fact]
    public void SuiteAndSelfTest()
    {
        var suite = Suite.Run(Shared.Url("/factorial/10"), scale: 0.02, factorialCheck: true, title: "C# suite");
        string[] names = { "basic load", "latency", "failure rate", "keep-alive", "stress" };
        Check("Suite.Run:", suite.Scenarios.Select(s => s.Scenario).SequenceEqual(names) && suite.Scenarios.All(s => s.Result.Failed == 0) &&
              names.All(suite.Table.Contains) && suite.Html.Contains("<title>C# suite</title>"), suite.Table);
        var (passed, selfTest) = Suite.SelfTest(0.01);
        Check("Suite.SelfTest:", passed && selfTest.Scenarios.Count == 10, $"passed {passed}, {selfTest.Scenarios.Count} scenarios");
    }

    // https:// through the binding: the built-in TLS (libssl.so.3, loaded by the native library) against
    // .NET's SslStream serving 10! with a certificate made here; each connection serves one request.
    [Fact]
    public async Task HttpsAgainstSslStream()
    {
        using var rsa = System.Security.Cryptography.RSA.Create(2048);
        var request = new System.Security.Cryptography.X509Certificates.CertificateRequest(
            "CN=localhost", rsa, System.Security.Cryptography.HashAlgorithmName.SHA256, System.Security.Cryptography.RSASignaturePadding.Pkcs1);
        using var made = request.CreateSelfSigned(DateTimeOffset.Now.AddDays(-1), DateTimeOffset.Now.AddDays(30));
        using var cert = System.Security.Cryptography.X509Certificates.X509CertificateLoader.LoadPkcs12(
            made.Export(System.Security.Cryptography.X509Certificates.X509ContentType.Pfx), null);
        var listener = new System.Net.Sockets.TcpListener(System.Net.IPAddress.Loopback, 0);
        listener.Start();
        int tlsPort = ((System.Net.IPEndPoint)listener.LocalEndpoint).Port;
        var served = 0;
        var serving = Task.Run(() =>
        {
            try
            {
                for (;;)
                {
                    using var client = listener.AcceptTcpClient();
                    using var tls = new System.Net.Security.SslStream(client.GetStream());
                    tls.AuthenticateAsServer(cert);
                    var head = new List<byte>();
                    var one = new byte[1];
                    while (!(head.Count >= 4 && head[^4] == '\r' && head[^3] == '\n' && head[^2] == '\r' && head[^1] == '\n') && tls.Read(one, 0, 1) == 1)
                        head.Add(one[0]);
                    tls.Write(System.Text.Encoding.ASCII.GetBytes("HTTP/1.1 200 OK\r\nContent-Length: 7\r\nConnection: close\r\n\r\n3628800"));
                    ++served;
                }
            }
            catch (Exception) { }  // the listener stopped
        });
        using var plan = new Plan($"https://127.0.0.1:{tlsPort}/factorial/10") { Requests = 4, KeepAlive = false, CheckFactorial = 10 };
        plan.SetTls(TlsVersion.Tls12);
        var r = plan.Run();
        plan.TlsResume = true;
        var resuming = plan.Run();
        listener.Stop();
        await serving;
        Check("https: a run", r.Completed == 4 && served == 8 && r.TlsHandshakes == 4 && r.Tls?.Protocol == "TLSv1.2" &&
              r.Tls?.ServerKeyBits == 2048 && r.TlsHandshake.Count == 4 && r.TlsNoSession == 0,
              $"{r.Completed} completed, {r.TlsHandshakes} handshakes, {r.TlsNoSession} with no session, {r.Tls}");
        // The first connection has no session to offer; a server may resume the others or not.
        Check("https: TlsResume counts the full handshakes with no session at hand", resuming.Completed == 4 &&
              resuming.TlsNoSession >= 1 && resuming.TlsResumed + resuming.TlsNoSession <= resuming.TlsHandshakes,
              $"{resuming.TlsHandshakes} handshakes, {resuming.TlsResumed} resumed, {resuming.TlsNoSession} with no session");
        string name = "accepted";
        try { plan.SetTls((TlsVersion)0x0200); } catch (MicrobenchException e) { name = e.Name; }
        Check("https: a TLS version out of range", name == "plan_bad_tls_version", name);
    }
    // A percentile of a log's merged histogram against the run's own (ms): the same bucket. The log's is
    // its bucket's highest value; the run's is clamped to its exact maximum, so it may lie lower in the top
    // bucket (3 significant digits: a bucket spans at most 1/1024 of its values).
    private static bool Equivalent(long fromLog, double fromRunMs)
    {
        long fromRun = (long)Math.Round(fromRunMs * 1e6);
        return fromLog >= fromRun && fromLog - fromRun <= fromLog / 1024 + 1;
    }

    private static class Forgotten
    {
        [MethodImpl(MethodImplOptions.NoInlining)]
        public static ushort Start() => new Server().Port;  // never disposed
    }
}

// Microbench.cs — an idiomatic C# face on the C API: a Plan you configure with properties and
// Run(), a Result with plain values (and its JSON), Report.Html drawing results in one HTML page,
// the reference Server, and MicrobenchException carrying the status's name. Plans and servers hold
// SafeHandles: released by Dispose, or by the finalizer when a caller forgets; a result's handle is
// released as soon as its values are copied out.
using System.Runtime.InteropServices;
using System.Text;

namespace Microbench;

public sealed class MicrobenchException(int status)
    : Exception($"{Marshal.PtrToStringUTF8(Native.StatusName(status))}: {Marshal.PtrToStringUTF8(Native.StatusMessage(status))}")
{
    public int Status { get; } = status;
    public string Name { get; } = Marshal.PtrToStringUTF8(Native.StatusName(status)) ?? "unknown";

    internal static void Check(int status)
    {
        if (status != 0) throw new MicrobenchException(status);
    }
}

/// <summary>Why a request failed (mb_failure): each failed request has exactly one reason.</summary>
public enum Failure { Connect = 0, Write = 1, Receive = 2, Parse = 3, Timeout = 4, Length = 5, Check = 6 }

/// <summary>One of ab's timing columns in milliseconds: exact count, min, mean, max; percentiles within 0.1 %.</summary>
public sealed record Timing(ulong Count, double MinMs, double MeanMs, double MaxMs, double P50Ms, double P90Ms, double P99Ms, double P999Ms);

/// <summary>How requests are spread over time at a fixed rate.</summary>
public enum Arrivals { Uniform = 0, Poisson = 1 }  // mb_arrivals

/// <summary>One interval of a run: what was sent and ended in it; response times in milliseconds.</summary>
public sealed record IntervalRow(double StartSeconds, double DurationSeconds, ulong Sent, ulong Ended, ulong Completed, ulong Failed,
                                 double Target, double Rate, double P50Ms, double P90Ms, double P99Ms, double MaxMs,
                                 double LagP99Ms, double LagMaxMs);

/// <summary>What a run measured: every request ended exactly once, completed or failed with one reason.
/// Response is from the intended send time at a fixed rate (empty in a closed loop).</summary>
public sealed record Result(ulong Ended, ulong Completed, ulong Failed, ulong Unfinished, ulong Non2xx, ulong Connects,
                            IReadOnlyDictionary<Failure, ulong> Failures, double ElapsedSeconds, double RequestsPerSecond,
                            Timing Connect, Timing Waiting, Timing Processing, Timing Total, Timing Response,
                            IReadOnlyList<IntervalRow> Intervals, string Report, string Json);

public static class Report
{
    /// <summary>The HTML report (one self-contained page: inline SVG charts, no script or link) of
    /// results drawn together, labelled by `labels` (null: as each run was labelled).</summary>
    public static string Html(IReadOnlyList<Result> results, IReadOnlyList<string>? labels = null, string? title = null) =>
        HtmlFromJson(results.Select(r => r.Json).ToList(), labels, title);

    /// <summary>The same from saved JSON results (Result.Json, or the command line's --json of any mode).</summary>
    public static string HtmlFromJson(IReadOnlyList<string> documents, IReadOnlyList<string>? labels = null, string? title = null)
    {
        if (labels != null && labels.Count != documents.Count) throw new ArgumentException("one label per result", nameof(labels));
        var docs = documents.Select(Marshal.StringToCoTaskMemUTF8).ToArray();
        var names = Enumerable.Range(0, documents.Count).Select(i => labels == null ? IntPtr.Zero : Marshal.StringToCoTaskMemUTF8(labels[i])).ToArray();
        try
        {
            MicrobenchException.Check(Native.ReportHtmlJson(docs, names, (nuint)docs.Length, title, null, 0, out nuint length));
            var page = new byte[length + 1];
            MicrobenchException.Check(Native.ReportHtmlJson(docs, names, (nuint)docs.Length, title, page, (nuint)page.Length, out _));
            return Encoding.UTF8.GetString(page, 0, (int)length);
        }
        finally
        {
            foreach (var p in docs.Concat(names)) Marshal.FreeCoTaskMem(p);
        }
    }
}

public static class Library
{
    /// <summary>The linked libmicrobench's version, e.g. "0.1.0".</summary>
    public static string Version => Marshal.PtrToStringUTF8(Native.Version()) ?? "";
    public static int VersionNumber => Native.VersionNumber();
}

public sealed class Plan : IDisposable
{
    private readonly PlanHandle handle;

    public Plan(string url)
    {
        MicrobenchException.Check(Native.PlanCreate(url, out handle));
    }

    public ulong Requests { set => MicrobenchException.Check(Native.PlanSetRequests(handle, value)); }
    public TimeSpan Duration { set => MicrobenchException.Check(Native.PlanSetDurationMs(handle, (long)value.TotalMilliseconds)); }
    public uint Concurrency { set => MicrobenchException.Check(Native.PlanSetConcurrency(handle, value)); }
    public uint Threads { set => MicrobenchException.Check(Native.PlanSetThreads(handle, value)); }
    public bool KeepAlive { set => MicrobenchException.Check(Native.PlanSetKeepAlive(handle, value ? 1 : 0)); }
    public uint Pipeline { set => MicrobenchException.Check(Native.PlanSetPipeline(handle, value)); }
    public TimeSpan Timeout
    {
        set => MicrobenchException.Check(Native.PlanSetTimeoutMs(handle, (long)value.TotalMilliseconds, (long)value.TotalMilliseconds));
    }
    public string Method { set => MicrobenchException.Check(Native.PlanSetMethod(handle, value)); }
    /// <summary>Every body must be exactly n!, as text or as JSON {"factorial": n!}.</summary>
    public uint CheckFactorial { set => MicrobenchException.Check(Native.PlanCheckFactorial(handle, value)); }
    public int[] ExpectStatus { set => MicrobenchException.Check(Native.PlanExpectStatus(handle, value, (nuint)value.Length)); }
    /// <summary>Requests per second on a fixed schedule (the open model); 0: a closed loop.</summary>
    public double Rate { set => MicrobenchException.Check(Native.PlanSetRate(handle, value)); }
    /// <summary>Rows in Result.Intervals every this long (10 ms to 1 h; zero: none). Default: 1 s at a fixed rate.</summary>
    public TimeSpan Interval { set => MicrobenchException.Check(Native.PlanSetIntervalMs(handle, (long)value.TotalMilliseconds)); }

    /// <summary>At a fixed rate: evenly spaced, or Poisson arrivals drawn from the seed.</summary>
    public void SetArrivals(Arrivals arrivals, ulong seed = 0) => MicrobenchException.Check(Native.PlanSetArrivals(handle, arrivals, seed));

    public void AddHeader(string name, string value) => MicrobenchException.Check(Native.PlanAddHeader(handle, name, value));

    public Result Run()
    {
        MicrobenchException.Check(Native.Run(handle, out ResultHandle owned));
        using (owned) return ResultOf(owned);
    }

    private static Result ResultOf(ResultHandle owned)
    {
        bool added = false;
        owned.DangerousAddRef(ref added);
        try
        {
            IntPtr r = owned.DangerousGetHandle();
            var failures = new Dictionary<Failure, ulong>();
            foreach (Failure f in Enum.GetValues<Failure>()) failures[f] = Native.ResultFailures(r, f);
            ulong needed = Native.ReportAb(r, null, 0);
            var text = new byte[needed + 1];
            Native.ReportAb(r, text, (nuint)text.Length);
            ulong jsonSize = Native.ResultJson(r, null, 0, null, 0);
            var json = new byte[jsonSize + 1];
            Native.ResultJson(r, null, 0, json, (nuint)json.Length);
            var rows = new List<IntervalRow>();
            for (nuint i = 0; i < Native.ResultIntervalCount(r); ++i)
            {
                MicrobenchException.Check(Native.ResultInterval(r, i, out Interval x, (nuint)Marshal.SizeOf<Interval>()));
                rows.Add(new IntervalRow(x.StartNs / 1e9, x.DurationNs / 1e9, x.Sent, x.Ended, x.Completed, x.Failed, x.Target, x.Rate,
                                         x.P50Ns / 1e6, x.P90Ns / 1e6, x.P99Ns / 1e6, x.MaxNs / 1e6, x.LagP99Ns / 1e6, x.LagMaxNs / 1e6));
            }
            return new Result(Native.ResultCount(r, Count.Ended), Native.ResultCount(r, Count.Completed),
                              Native.ResultCount(r, Count.Failed), Native.ResultCount(r, Count.Unfinished),
                              Native.ResultCount(r, Count.Non2xx), Native.ResultCount(r, Count.Connects), failures,
                              Native.ResultElapsedNs(r) / 1e9, Native.ResultRequestsPerSecond(r), TimingOf(r, Column.Connect),
                              TimingOf(r, Column.Waiting), TimingOf(r, Column.Processing), TimingOf(r, Column.Total),
                              TimingOf(r, Column.Response), rows, Encoding.UTF8.GetString(text, 0, (int)needed),
                              Encoding.UTF8.GetString(json, 0, (int)jsonSize));
        }
        finally
        {
            if (added) owned.DangerousRelease();
        }
    }

    private static Timing TimingOf(IntPtr r, Column column) =>
        new(Native.TimingCount(r, column), Native.TimingMinNs(r, column) / 1e6, Native.TimingMeanNs(r, column) / 1e6,
            Native.TimingMaxNs(r, column) / 1e6, Native.TimingPercentileNs(r, column, 50) / 1e6,
            Native.TimingPercentileNs(r, column, 90) / 1e6, Native.TimingPercentileNs(r, column, 99) / 1e6,
            Native.TimingPercentileNs(r, column, 99.9) / 1e6);

    public void Dispose() => handle.Dispose();
}

/// <summary>The reference server on a loopback port (0: a free one) until disposed.</summary>
public sealed class Server : IDisposable
{
    private readonly ServerHandle handle;

    public Server(string host = "127.0.0.1", ushort port = 0, uint threads = 1)
    {
        MicrobenchException.Check(Native.ServerStart(host, port, threads, out handle));
        Host = host;
        Port = Native.ServerPort(handle);
    }

    /// <summary>The address it listens on: "127.0.0.1" or "::1".</summary>
    public string Host { get; }
    public ushort Port { get; }
    public ulong Requests => Native.ServerRequests(handle);
    /// <summary>http://HOST:PORT/path, an IPv6 host in brackets.</summary>
    public string Url(string path) => Host.Contains(':') ? $"http://[{Host}]:{Port}{path}" : $"http://{Host}:{Port}{path}";

    public void Dispose() => handle.Dispose();
}

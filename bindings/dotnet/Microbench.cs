// Microbench.cs — an idiomatic C# face on the C API: a Plan you configure with properties and
// Run() or RunAsync(CancellationToken), a Result with plain values (and its JSON), Report.Html
// drawing results in one HTML page, the five-scenario Suite and the self-test, Hlog.Read of
// HdrHistogram logs, Cancel, the reference Server, and MicrobenchException carrying the status's
// name. Plans and servers hold SafeHandles: released by Dispose, or by the finalizer when a caller
// forgets; a result's or log's handle is released as soon as its values are copied out. A callback
// that throws stops its run, and Run() throws that exception.
using System.Globalization;
using System.Runtime.ExceptionServices;
using System.Runtime.InteropServices;
using System.Text;

namespace Microbench;

/// <summary>A call into microbench failed: Status and Name say which status; the message is the status's, or the reason a log line could not be read.</summary>
public sealed class MicrobenchException(int status, string? message = null)
    : Exception($"{Marshal.PtrToStringUTF8(Native.StatusName(status))}: {message ?? Marshal.PtrToStringUTF8(Native.StatusMessage(status))}")
{
    /// <summary>The status number (microbench.h's MB_ codes; they never change).</summary>
    public int Status { get; } = status;
    /// <summary>The status's stable name, e.g. "url_bad_port".</summary>
    public string Name { get; } = Marshal.PtrToStringUTF8(Native.StatusName(status)) ?? "unknown";

    internal static void Check(int status)
    {
        if (status != 0) throw new MicrobenchException(status);
    }
}

/// <summary>Why a request failed (mb_failure): each failed request has exactly one reason.</summary>
public enum Failure
{
    /// <summary>Refused, unreachable or timed out while connecting.</summary>
    Connect = 0,
    /// <summary>The connection broke while sending.</summary>
    Write = 1,
    /// <summary>Reset or closed before the response was complete.</summary>
    Receive = 2,
    /// <summary>The response was not valid HTTP/1.x.</summary>
    Parse = 3,
    /// <summary>No complete response within the timeout.</summary>
    Timeout = 4,
    /// <summary>ab's rule: the body length differs from the first response's.</summary>
    Length = 5,
    /// <summary>A whole response failed a check.</summary>
    Check = 6,
    /// <summary>The TLS layer failed: handshake, alert, certificate, or a record.</summary>
    Tls = 7,
}

/// <summary>One of ab's timing columns in milliseconds: exact count, min, mean, max; percentiles within 0.1 %;
/// the standard deviation (population) from the histogram's buckets around the exact mean; Hgrm, the percentile
/// spectrum as HdrHistogram's .hgrm text in ms, for its plotter (wrk2's distribution).</summary>
public sealed record Timing(ulong Count, double MinMs, double MeanMs, double MaxMs, double P50Ms, double P90Ms, double P99Ms, double P999Ms,
                            double StddevMs, string Hgrm = "");

/// <summary>How requests are spread over time at a fixed rate.</summary>
public enum Arrivals  // mb_arrivals
{
    /// <summary>Evenly spaced, 1/rate apart (the default).</summary>
    Uniform = 0,
    /// <summary>Independent arrivals: exponential gaps averaging 1/rate, drawn from the seed.</summary>
    Poisson = 1,
}

/// <summary>How each request picks its target.</summary>
public enum TargetOrder  // mb_order
{
    /// <summary>Worker w of T sends its k-th request to target (w + k·T) mod N (the default).</summary>
    InTurn = 0,
    /// <summary>Each at random from the seed: the same seed, the same picks.</summary>
    Random = 1,
}

/// <summary>Plan.OnRequest: writes one whole HTTP/1.x request into <paramref name="room"/> and returns its length; 0 sends
/// no more from that worker. <paramref name="index"/> is the request's number, unique in the run; <paramref name="target"/>
/// comes in as the target the order picked (0 without targets) and may be set to the one the request counts under, in
/// checks and Result.Targets; <paramref name="prepared"/> is the request the plan would send to it.</summary>
public delegate int RequestWriter(Span<byte> room, ulong index, ref uint target, ReadOnlySpan<byte> prepared);

/// <summary>What one target got: its request target, its place among the run's targets (the folded row: how many it
/// stands for), its counts (Wrong: failed its checks, of Failed) and its p50 and p99 total time in ms, within 10%.</summary>
public sealed record TargetRow(string Target, ulong Index, ulong Requests, ulong Completed, ulong Failed, ulong Unfinished,
                               ulong Non2xx, ulong Wrong, double P50Ms, double P99Ms)
{
    internal static TargetRow Of(IntPtr r, nuint row)
    {
        MicrobenchException.Check(Native.ResultTargetRow(r, row, out TargetRowNative x, (nuint)Marshal.SizeOf<TargetRowNative>()));
        return new(Marshal.PtrToStringUTF8(Native.ResultTargetName(r, row)) ?? "", x.Index, x.Requests, x.Completed, x.Failed,
                   x.Unfinished, x.Non2xx, x.Wrong, x.P50Ns / 1e6, x.P99Ns / 1e6);
    }
}

/// <summary>One interval of a run: what was sent and ended in it; response times in milliseconds.</summary>
public sealed record IntervalRow(double StartSeconds, double DurationSeconds, ulong Sent, ulong Ended, ulong Completed, ulong Failed,
                                 double TargetRequests, double RatePerSecond, double TargetPerSecond, double P50Ms, double P90Ms, double P99Ms, double MaxMs,
                                 double LagP99Ms, double LagMaxMs)
{
    internal static IntervalRow Of(in Interval x) =>
        new(x.StartNs / 1e9, x.DurationNs / 1e9, x.Sent, x.Ended, x.Completed, x.Failed, x.TargetRequests, x.RatePerSecond, x.TargetPerSecond,
            x.P50Ns / 1e6, x.P90Ns / 1e6, x.P99Ns / 1e6, x.MaxNs / 1e6, x.LagP99Ns / 1e6, x.LagMaxNs / 1e6);
}

/// <summary>One stage of a staged rate (Plan.AddStage): its start and length in seconds, its rate at its start and end, the
/// requests the schedule meant to send in it and what those sent got, by their intended send time; P50Ms and P99Ms within
/// 10 % (null when none completed in it, or after a merge).</summary>
public sealed record Stage(double StartSeconds, double DurationSeconds, double FromPerSecond, double ToPerSecond, double Intended,
                           ulong Sent, ulong Completed, ulong Failed, double? P50Ms, double? P99Ms)
{
    internal static Stage Of(in StageNative x) =>
        new(x.StartMs / 1e3, x.DurationMs / 1e3, x.FromPerSecond, x.ToPerSecond, x.Intended, x.Sent, x.Completed, x.Failed,
            x.P50Ns >= 0 ? x.P50Ns / 1e6 : null, x.P99Ns >= 0 ? x.P99Ns / 1e6 : null);
}

/// <summary>What a run measured: every request ended exactly once, completed or failed with one reason.
/// Response and ScheduleLag are from the intended send time at a fixed rate (empty in a closed loop).</summary>
public sealed record Result
{
    /// <summary>Requests that ended: Completed + Failed, each exactly once.</summary>
    public ulong Ended { get; init; }
    /// <summary>Whole responses that passed the checks (any status).</summary>
    public ulong Completed { get; init; }
    /// <summary>Requests that failed, each with one reason in Failures.</summary>
    public ulong Failed { get; init; }
    /// <summary>In flight when a duration ended or a cancel came.</summary>
    public ulong Unfinished { get; init; }
    /// <summary>Completed responses whose status was not 2xx.</summary>
    public ulong Non2xx { get; init; }
    /// <summary>Requests sent on a connection that had served one.</summary>
    public ulong KeepAliveRequests { get; init; }
    /// <summary>Requests that met a closed keep-alive connection and were sent again once.</summary>
    public ulong Retries { get; init; }
    /// <summary>Connections opened.</summary>
    public ulong Connects { get; init; }
    /// <summary>Connections the server closed.</summary>
    public ulong ServerCloses { get; init; }
    /// <summary>Bytes written, requests whole.</summary>
    public ulong BytesSent { get; init; }
    /// <summary>Bytes read, headers included.</summary>
    public ulong BytesReceived { get; init; }
    /// <summary>Decoded bodies of every whole response, failed ones too.</summary>
    public ulong BodyBytes { get; init; }
    /// <summary>Body length of the first response that passed, else of the first whole one.</summary>
    public ulong DocumentLength { get; init; }
    /// <summary>The most requests in flight at once.</summary>
    public ulong ConcurrencyPeak { get; init; }
    /// <summary>Connects that waited for a local port, descriptor or buffer.</summary>
    public ulong LocalWaits { get; init; }
    /// <summary>Fixed rate: sent late, every connection busy at their time.</summary>
    public ulong ConnectionWaits { get; init; }
    /// <summary>Fixed rate: their time came before the end, never sent.</summary>
    public ulong ScheduleMissed { get; init; }
    /// <summary>Failed requests by reason, every reason present.</summary>
    public required IReadOnlyDictionary<Failure, ulong> Failures { get; init; }
    /// <summary>Complete responses by status code, e.g. {200: 998, 503: 2}.</summary>
    public required IReadOnlyDictionary<int, ulong> StatusCodes { get; init; }
    /// <summary>The run was stopped by a Cancel or a CancellationToken (a callback that throws stops it too, and Run throws that).</summary>
    public bool Cancelled { get; init; }
    /// <summary>From the first connect to the last request ended.</summary>
    public double ElapsedSeconds { get; init; }
    /// <summary>Ended requests per second, as ab reports them.</summary>
    public double RequestsPerSecond { get; init; }
    /// <summary>Completed (correct) responses per second.</summary>
    public double GoodputPerSecond { get; init; }
    /// <summary>The first response's Server header.</summary>
    public required string ServerSoftware { get; init; }
    /// <summary>With Plan.AddConnectTo: the "host:port" the run connected to; with Plan.UnixSocket "unix:PATH"; "" when
    /// the URL's.</summary>
    public string ConnectedTo { get; init; } = "";
    /// <summary>Over TLS (https://): handshakes made.</summary>
    public ulong TlsHandshakes { get; init; }
    /// <summary>Of them, those that resumed a session.</summary>
    public ulong TlsResumed { get; init; }
    /// <summary>With Plan.TlsResume: of the full handshakes, those made with no session at hand to offer.</summary>
    public ulong TlsNoSession { get; init; }
    /// <summary>Of the Failure.Tls ones, requests whose handshake failed (ab's Connect).</summary>
    public ulong TlsHandshakeFailures { get; init; }
    /// <summary>Plan.OnRequest's answers that were longer than its room or named a target outside the targets; each
    /// stopped its worker.</summary>
    public ulong RequestFnFaults { get; init; }
    /// <summary>Over a Unix socket: connects that found the server's listen queue full and waited.</summary>
    public ulong BacklogWaits { get; init; }
    /// <summary>What the first handshake negotiated; null without TLS.</summary>
    public TlsSession? Tls { get; init; }
    /// <summary>The first distinct reasons of Failure.Tls.</summary>
    public required IReadOnlyList<string> TlsFailureReasons { get; init; }
    /// <summary>Each handshake, within Connect.</summary>
    public required Timing TlsHandshake { get; init; }
    /// <summary>ab's Connect column: start to connected (0 on a reused connection).</summary>
    public required Timing Connect { get; init; }
    /// <summary>ab's Waiting column: request written to first response byte.</summary>
    public required Timing Waiting { get; init; }
    /// <summary>ab's Processing column: Total less Connect.</summary>
    public required Timing Processing { get; init; }
    /// <summary>ab's Total column: start to last byte (at a fixed rate, the service time).</summary>
    public required Timing Total { get; init; }
    /// <summary>At a fixed rate: intended send time to last byte; empty in a closed loop.</summary>
    public required Timing Response { get; init; }
    /// <summary>At a fixed rate: intended send time to the actual send; empty in a closed loop.</summary>
    public required Timing ScheduleLag { get; init; }
    /// <summary>A row per Plan.Interval (by default per second at a fixed rate), else none.</summary>
    public required IReadOnlyList<IntervalRow> Intervals { get; init; }
    /// <summary>With Plan.AddStage: one row per stage.</summary>
    public IReadOnlyList<Stage> Stages { get; init; } = Array.Empty<Stage>();
    /// <summary>Ab's report and microbench's notes.</summary>
    public required string Report { get; init; }
    /// <summary>The percentile table of every timing column.</summary>
    public required string LatencyReport { get; init; }
    /// <summary>The whole result as JSON, the command line's --json.</summary>
    public required string Json { get; init; }
    /// <summary>The intervals as HdrHistogram's interval log (format 1.3: Tag=total, or at a fixed rate Tag=response,
    /// Tag=service and Tag=schedule_lag rows, nanoseconds), with Plan.IntervalHistograms; else "".</summary>
    public string Hlog { get; init; } = "";
    /// <summary>What each target got (Plan.ByTarget, or Plan.CheckFactorialOfEachTarget with targets): the worst first,
    /// at most 1,000; the rest folded into TargetsFolded (null when none were kept).</summary>
    public IReadOnlyList<TargetRow> Targets { get; init; } = [];
    /// <summary>The targets past Targets, added together; its Index is how many.</summary>
    public TargetRow? TargetsFolded { get; init; }
    /// <summary>With Plan.CheckFactorialOfEachTarget: where the answers turn wrong, "right for n = 0..20; wrong from
    /// n = 21 (...)"; else "".</summary>
    public string FactorialVerdict { get; init; } = "";

    // Reads a result's values; the caller keeps the handle alive.
    internal static Result Of(IntPtr r)
    {
        var failures = new Dictionary<Failure, ulong>();
        foreach (Failure f in Enum.GetValues<Failure>()) failures[f] = Native.ResultFailures(r, f);
        var statuses = new Dictionary<int, ulong>();
        for (int status = 100; status <= 999; ++status)
        {
            ulong n = Native.ResultStatusCount(r, status);
            if (n > 0) statuses[status] = n;
        }
        var rows = new List<IntervalRow>();
        for (nuint i = 0; i < Native.ResultIntervalCount(r); ++i)
        {
            MicrobenchException.Check(Native.ResultInterval(r, i, out Interval x, (nuint)Marshal.SizeOf<Interval>()));
            rows.Add(IntervalRow.Of(x));
        }
        var targets = new List<TargetRow>();
        for (nuint i = 0; i < Native.ResultTargetRowCount(r); ++i) targets.Add(TargetRow.Of(r, i));
        var stages = new List<Stage>();
        for (nuint i = 0; i < Native.ResultStageCount(r); ++i)
        {
            MicrobenchException.Check(Native.ResultStage(r, i, out StageNative x, (nuint)Marshal.SizeOf<StageNative>()));
            stages.Add(Stage.Of(x));
        }
        var reasons = new List<string>();
        for (nuint i = 0; i < Native.ResultTlsFailureReasonCount(r); ++i)
            reasons.Add(Marshal.PtrToStringUTF8(Native.ResultTlsFailureReason(r, i)) ?? "");
        return new Result
        {
            Ended = Native.ResultCount(r, Count.Ended), Completed = Native.ResultCount(r, Count.Completed),
            Failed = Native.ResultCount(r, Count.Failed), Unfinished = Native.ResultCount(r, Count.Unfinished),
            Non2xx = Native.ResultCount(r, Count.Non2xx), KeepAliveRequests = Native.ResultCount(r, Count.KeepAliveRequests),
            Retries = Native.ResultCount(r, Count.Retries), Connects = Native.ResultCount(r, Count.Connects),
            ServerCloses = Native.ResultCount(r, Count.ServerCloses), BytesSent = Native.ResultCount(r, Count.BytesSent),
            BytesReceived = Native.ResultCount(r, Count.BytesReceived), BodyBytes = Native.ResultCount(r, Count.BodyBytes),
            DocumentLength = Native.ResultCount(r, Count.DocumentLength), ConcurrencyPeak = Native.ResultCount(r, Count.ConcurrencyPeak),
            LocalWaits = Native.ResultCount(r, Count.LocalWaits), ConnectionWaits = Native.ResultCount(r, Count.ConnectionWaits),
            ScheduleMissed = Native.ResultCount(r, Count.ScheduleMissed),
            Failures = failures, StatusCodes = statuses,
            Cancelled = Native.ResultCancelled(r) != 0, ElapsedSeconds = Native.ResultElapsedNs(r) / 1e9,
            RequestsPerSecond = Native.ResultRequestsPerSecond(r), GoodputPerSecond = Native.ResultGoodputPerSecond(r),
            ServerSoftware = Marshal.PtrToStringUTF8(Native.ResultServerSoftware(r)) ?? "",
            ConnectedTo = Marshal.PtrToStringUTF8(Native.ResultConnectedTo(r)) ?? "",
            TlsHandshakes = Native.ResultCount(r, Count.TlsHandshakes), TlsResumed = Native.ResultCount(r, Count.TlsResumed),
            TlsNoSession = Native.ResultCount(r, Count.TlsNoSession),
            TlsHandshakeFailures = Native.ResultCount(r, Count.TlsHandshakeFailures),
            RequestFnFaults = Native.ResultCount(r, Count.RequestFnFaults), BacklogWaits = Native.ResultCount(r, Count.BacklogWaits),
            Tls = TlsSession.Of(r), TlsFailureReasons = reasons, TlsHandshake = TimingOf(r, Column.TlsHandshake),
            Connect = TimingOf(r, Column.Connect), Waiting = TimingOf(r, Column.Waiting), Processing = TimingOf(r, Column.Processing),
            Total = TimingOf(r, Column.Total), Response = TimingOf(r, Column.Response), ScheduleLag = TimingOf(r, Column.ScheduleLag),
            Intervals = rows, Stages = stages,
            Report = Text.Of((buf, size) => Native.ReportAb(r, buf, size)),
            LatencyReport = Text.Of((buf, size) => Native.ReportLatency(r, null, 0, buf, size)),
            Json = Text.Of((buf, size) => Native.ResultJson(r, null, 0, buf, size)),
            Hlog = Text.Of((buf, size) => Native.ResultHlog(r, buf, size)),
            Targets = targets,
            TargetsFolded = Native.ResultTargetCount(r) > 0 ? TargetRow.Of(r, Native.ResultTargetRowCount(r)) : null,
            FactorialVerdict = Text.Of((buf, size) => Native.ResultFactorialVerdict(r, buf, size)),
        };
    }

    private static Timing TimingOf(IntPtr r, Column column) =>
        new(Native.TimingCount(r, column), Native.TimingMinNs(r, column) / 1e6, Native.TimingMeanNs(r, column) / 1e6,
            Native.TimingMaxNs(r, column) / 1e6, Native.TimingPercentileNs(r, column, 50) / 1e6,
            Native.TimingPercentileNs(r, column, 90) / 1e6, Native.TimingPercentileNs(r, column, 99) / 1e6,
            Native.TimingPercentileNs(r, column, 99.9) / 1e6, Native.TimingStddevNs(r, column) / 1e6,
            Text.Of((buf, size) => Native.ResultHgrm(r, column, buf, size)));

    // An owned result: read while its handle is held.
    internal static Result Of(ResultHandle owned)
    {
        bool added = false;
        owned.DangerousAddRef(ref added);
        try
        {
            return Of(owned.DangerousGetHandle());
        }
        finally
        {
            if (added) owned.DangerousRelease();
        }
    }
}

/// <summary>Text the C API writes snprintf-style: asked for its length, then copied.</summary>
internal static class Text
{
    internal static string Of(Func<byte[]?, nuint, nuint> write)
    {
        nuint length = write(null, 0);
        var buf = new byte[length + 1];
        write(buf, (nuint)buf.Length);
        return Encoding.UTF8.GetString(buf, 0, (int)length);
    }
}

/// <summary>TimeSpans as the C API's whole milliseconds.</summary>
internal static class Time
{
    /// <summary>Rounded to the nearest millisecond, a positive time to at least 1 ms (0 means none or never to the
    /// C API); a negative one is an ArgumentOutOfRangeException.</summary>
    internal static long Ms(TimeSpan t, string name)
    {
        if (t < TimeSpan.Zero) throw new ArgumentOutOfRangeException(name, t, "a time is zero or more");
        long ms = (long)Math.Round(t.TotalMilliseconds);  // TimeSpan.MaxValue is about 9.2e14 ms: within a long
        return ms == 0 && t > TimeSpan.Zero ? 1 : ms;
    }
}

/// <summary>HTML reports of results drawn together.</summary>
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
        var docs = new IntPtr[documents.Count];
        var names = new IntPtr[documents.Count];  // IntPtr.Zero: as each run was labelled
        try
        {
            for (int i = 0; i < documents.Count; ++i)
            {
                docs[i] = Marshal.StringToCoTaskMemUTF8(documents[i]);
                if (labels != null) names[i] = Marshal.StringToCoTaskMemUTF8(labels[i]);
            }
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

/// <summary>One tag's rows of HdrHistogram interval logs, merged exactly (Hlog.Read). Values are in the logs'
/// unit: nanoseconds in microbench's. Tag "" for untagged rows; StartSeconds and EndSeconds span the rows (since the
/// epoch when the log says); Min and Max as the histograms' buckets give them; Mean and Stddev over each bucket's middle
/// value, as HdrHistogram computes them; Percentiles for those asked; Hgrm the spectrum as .hgrm text.</summary>
public sealed record HlogTagTotal(string Tag, ulong Intervals, ulong Count, double StartSeconds, double EndSeconds, long Min, long Max,
                                  double Mean, double Stddev, IReadOnlyDictionary<double, long> Percentiles, string Hgrm);

/// <summary>HdrHistogram interval logs read back and merged per tag.</summary>
public static class Hlog
{
    /// <summary>Reads HdrHistogram interval logs — Result.Hlog, the command line's --hlog, or another HdrHistogram
    /// writer's (HdrHistogram.NET's UTF-16 and hdr-histogram-js's are tested), each as its bytes — and merges every row of every log exactly per tag,
    /// so several generators' logs give the fleet's figures. Tags in the order they first appear. Throws
    /// MicrobenchException (Name "hlog_bad", the message "hlog_bad: line N: why") when a line cannot be read.
    /// It throws the same when a row's histogram or the tags' totals would need more counter memory than maxMemory
    /// bytes (null: the library's 128 MiB). hgrmScale divides the spectrum's values (1e6: ns to ms).</summary>
    public static IReadOnlyList<HlogTagTotal> Read(IEnumerable<byte[]> logs, IReadOnlyList<double>? percentiles = null, double hgrmScale = 1e6,
                                                   ulong? maxMemory = null)
    {
        percentiles ??= [50, 90, 99, 99.9, 99.99];
        MicrobenchException.Check(Native.HlogCreate(out HlogHandle hlog));
        using (hlog)
        {
            if (maxMemory is ulong bytes) MicrobenchException.Check(Native.HlogSetMaxMemory(hlog, bytes));
            foreach (byte[] log in logs)
            {
                int status = Native.HlogAdd(hlog, log, (nuint)log.Length);
                if (status != 0) throw new MicrobenchException(status, Marshal.PtrToStringUTF8(Native.HlogMessage(hlog)));
            }
            var tags = new List<HlogTagTotal>();
            for (nuint i = 0; i < Native.HlogTagCount(hlog); ++i)
            {
                MicrobenchException.Check(Native.HlogTagInfo(hlog, i, out HlogTag t, (nuint)Marshal.SizeOf<HlogTag>()));
                var values = percentiles.Distinct().ToDictionary(p => p, p => Native.HlogPercentile(hlog, i, p));
                tags.Add(new HlogTagTotal(Marshal.PtrToStringUTF8(t.Tag) ?? "", t.Intervals, t.Count, t.StartS, t.EndS, t.Min, t.Max, t.Mean,
                                          t.Stddev, values, Text.Of((buf, size) => Native.HlogHgrm(hlog, i, hgrmScale, buf, size))));
            }
            return tags;
        }
    }

    /// <summary>The same for logs given as text (UTF-8).</summary>
    public static IReadOnlyList<HlogTagTotal> Read(params string[] logs) => Read(logs.Select(Encoding.UTF8.GetBytes));
}

/// <summary>Why a capacity search's step did not hold (Held: it did).</summary>
public enum CapacityVerdict
{
    /// <summary>Within the objective.</summary>
    Held = 0,
    /// <summary>Its response-time p99 was above the objective.</summary>
    Latency = 1,
    /// <summary>More of its requests failed than the objective allows.</summary>
    Failures = 2,
    /// <summary>Fewer requests a second ended than MinRateRatio of the target.</summary>
    Rate = 3,
    /// <summary>No request completed in its window.</summary>
    NoResponse = 4,
    /// <summary>No request of the step got a connection, and the generator lacked nothing: nothing listens there, or the host refuses or cannot be reached. Later versions may add verdicts; every one but Held failed.</summary>
    NoConnection = 5,
}

/// <summary>What a capacity search must hold, and how it goes (Plan.FindCapacity); the defaults are the library's.</summary>
public sealed class CapacityObjective
{
    /// <summary>The defaults, from the library (mb_capacity_objective_init).</summary>
    public CapacityObjective()
    {
        Native.CapacityObjectiveInit(out CapacityObjectiveNative d);
        (MaxP99Ms, MaxFailureRatio, MinRateRatio, StartRate, MaxRate, Resolution) = (d.MaxP99Ms, d.MaxFailureRatio, d.MinRateRatio, d.StartRate, d.MaxRate, d.Resolution);
        (Warmup, Step, MinResponses, Cooldown, MaxSteps) = (TimeSpan.FromMilliseconds(d.WarmupMs), TimeSpan.FromMilliseconds(d.StepMs), d.MinResponses,
                                                          TimeSpan.FromMilliseconds(d.CooldownMs), d.MaxSteps);
    }

    /// <summary>The response-time p99 a step may reach, in milliseconds (required: above 0).</summary>
    public double MaxP99Ms { get; set; }
    /// <summary>Failed requests over ended ones a step may have (0 to 1).</summary>
    public double MaxFailureRatio { get; set; }
    /// <summary>The requests a second that ended in a step's window, against its target, at least (0 to 1).</summary>
    public double MinRateRatio { get; set; }
    /// <summary>Requests a second of the first step.</summary>
    public double StartRate { get; set; }
    /// <summary>The search goes no higher.</summary>
    public double MaxRate { get; set; }
    /// <summary>The search stops when the lowest failed rate is within this fraction of the highest held one.</summary>
    public double Resolution { get; set; }
    /// <summary>Each step's warm-up, not measured.</summary>
    public TimeSpan Warmup { get; set; }
    /// <summary>Each step's measured window (longer when MinResponses would not fit).</summary>
    public TimeSpan Step { get; set; }
    /// <summary>Responses a window expects at its rate, at least.</summary>
    public ulong MinResponses { get; set; }
    /// <summary>Idle time between steps.</summary>
    public TimeSpan Cooldown { get; set; }
    /// <summary>Steps at the most.</summary>
    public uint MaxSteps { get; set; }
    /// <summary>Called after each step, on the thread that runs the search; an exception stops the search and FindCapacity throws it.</summary>
    public Action<CapacityStep>? OnStep { get; set; }

    internal CapacityObjectiveNative ToNative() => new()
    {
        Size = (nuint)Marshal.SizeOf<CapacityObjectiveNative>(),
        MaxP99Ms = MaxP99Ms, MaxFailureRatio = MaxFailureRatio, MinRateRatio = MinRateRatio, StartRate = StartRate, MaxRate = MaxRate,
        Resolution = Resolution, WarmupMs = Time.Ms(Warmup, nameof(Warmup)), StepMs = Time.Ms(Step, nameof(Step)), MinResponses = MinResponses,
        CooldownMs = Time.Ms(Cooldown, nameof(Cooldown)), MaxSteps = MaxSteps,
    };
}

/// <summary>One fixed-rate step of a capacity search: its target and achieved rate (requests a second), the measured
/// window after the warm-up, the requests that ended in it, their response-time percentiles and the schedule lag p99
/// (ms), the whole step's connection waits and never-sent requests, its verdict, and whether the generator may be why
/// it failed (its lag, or too few connections for the rate at the objective's latency).</summary>
public sealed record CapacityStep(double TargetRate, double AchievedRate, TimeSpan Window, ulong Completed, ulong Failed, double P50Ms,
                                  double P99Ms, double P999Ms, double MaxMs, double LagP99Ms, ulong ConnectionWaits, ulong ScheduleMissed,
                                  CapacityVerdict Verdict, bool GeneratorSuspect)
{
    /// <summary>A second try at the rate of the step before it, which failed (a failed step runs once more before it
    /// counts).</summary>
    public bool Retry { get; init; }
    /// <summary>The step held the objective.</summary>
    public bool Held => Verdict == CapacityVerdict.Held;

    internal static CapacityStep Of(in CapacityStepNative s) =>
        new(s.TargetRate, s.AchievedRate, TimeSpan.FromTicks(s.WindowNs / 100), s.Completed, s.Failed, s.P50Ns / 1e6, s.P99Ns / 1e6,
            s.P999Ns / 1e6, s.MaxNs / 1e6, s.LagP99Ns / 1e6, s.ConnectionWaits, s.ScheduleMissed, (CapacityVerdict)s.Verdict,
            s.GeneratorSuspect != 0) { Retry = s.Retry != 0 };
}

/// <summary>What a capacity search found: the highest rate held (0: none); AtMaxRate, the step at MaxRate held (the
/// capacity is at least that); GeneratorLimited, the lowest failed step was the generator's doing (the capacity is a
/// lower bound); Cancelled; and every step in order.</summary>
public sealed record CapacityResult(double Rate, bool AtMaxRate, bool GeneratorLimited, bool Cancelled, IReadOnlyList<CapacityStep> Steps)
{
    /// <summary>When a step could not start (a host that stopped resolving...): that error's name and words, which
    /// ended the search after the steps before it (they stand); "" when it ended by itself.</summary>
    public string Stopped { get; init; } = "";
    /// <summary>The objective, the steps and the rate found, as a text table.</summary>
    public string Table { get; init; } = "";
    /// <summary>The same as JSON: {"microbench":…,"capacity_search":{…}}.</summary>
    public string Json { get; init; } = "";
    /// <summary>A self-contained HTML page: p99 and p50 by target rate with the objective, then the table.</summary>
    public string Html { get; init; } = "";

    internal static CapacityResult Of(CapacityHandle c)
    {
        var steps = new List<CapacityStep>();
        for (nuint i = 0; i < Native.CapacityStepCount(c); ++i)
        {
            MicrobenchException.Check(Native.CapacityStepInfo(c, i, out CapacityStepNative s, (nuint)Marshal.SizeOf<CapacityStepNative>()));
            steps.Add(CapacityStep.Of(s));
        }
        int flags = Native.CapacityFlags(c), stopped = Native.CapacityStopped(c);
        return new CapacityResult(Native.CapacityRate(c), (flags & 1) != 0, (flags & 2) != 0, (flags & 4) != 0, steps)
        {
            Stopped = stopped == 0 ? "" : $"{Marshal.PtrToStringUTF8(Native.StatusName(stopped))}: {Marshal.PtrToStringUTF8(Native.StatusMessage(stopped))}",
            Table = Text.Of((buf, size) => Native.CapacityTable(c, buf, size)),
            Json = Text.Of((buf, size) => Native.CapacityJson(c, buf, size)),
            Html = Text.Of((buf, size) => Native.CapacityReportHtml(c, null, buf, size)),
        };
    }
}

/// <summary>One scenario of a suite and what it measured.</summary>
public sealed record ScenarioResult(string Scenario, Result Result);

/// <summary>A suite's scenarios with the comparison table (text) and the HTML report of them all.</summary>
public sealed record SuiteReport(IReadOnlyList<ScenarioResult> Scenarios, string Table, string Html);

/// <summary>The five-scenario suite of the classic comparison, and the self-test.</summary>
public static class Suite
{
    /// <summary>The five scenarios of the classic comparison against url (scale multiplies the
    /// request counts; factorialCheck: every body must be exactly n!). title null: "microbench suite".</summary>
    public static SuiteReport Run(string url, double scale = 1.0, bool factorialCheck = false, string? title = null)
    {
        MicrobenchException.Check(Native.SuiteRun(url, scale, factorialCheck ? 1 : 0, out SuiteHandle suite));
        using (suite) return Of(suite, title);
    }

    /// <summary>The reference server on a free loopback port and the suite against both factorial
    /// forms; Passed only if every request passed.</summary>
    public static (bool Passed, SuiteReport Report) SelfTest(double scale = 0.25, string? title = null)
    {
        MicrobenchException.Check(Native.SelfTest(scale, out SuiteHandle suite, out int passed));
        using (suite) return (passed != 0, Of(suite, title));
    }

    private static SuiteReport Of(SuiteHandle suite, string? title)
    {
        var scenarios = new List<ScenarioResult>();
        for (nuint i = 0; i < Native.SuiteCount(suite); ++i)
            scenarios.Add(new ScenarioResult(Marshal.PtrToStringUTF8(Native.SuiteScenario(suite, i)) ?? "",
                                             Result.Of(Native.SuiteResult(suite, i))));
        return new SuiteReport(scenarios, Text.Of((buf, size) => Native.SuiteTable(suite, buf, size)),
                               Text.Of((buf, size) => Native.SuiteReportHtml(suite, title, buf, size)));
    }
}

/// <summary>The linked libmicrobench.</summary>
public static class Library
{
    /// <summary>The linked libmicrobench's version, e.g. "0.1.0".</summary>
    public static string Version => Marshal.PtrToStringUTF8(Native.Version()) ?? "";
    /// <summary>The linked libmicrobench's MB_VERSION_NUMBER: major * 10000 + minor * 100 + patch.</summary>
    public static int VersionNumber => Native.VersionNumber();
}

/// <summary>Stops runs from any thread: give it to Plan.Cancel, then call Trigger(). Once triggered
/// it stays so: a run given it afterwards stops at once.</summary>
public sealed class Cancel
{
    private readonly object gate = new();
    private readonly List<CancelHandle> runs = [];  // the tokens of the runs in progress that were given this
    private bool triggered;

    /// <summary>Stops every run given this that is in progress, and every later one at once.</summary>
    public void Trigger()
    {
        lock (gate)
        {
            triggered = true;
            foreach (var token in runs) Native.CancelTrigger(token);
        }
    }

    internal void Attach(CancelHandle token)
    {
        lock (gate)
        {
            runs.Add(token);
            if (triggered) Native.CancelTrigger(token);
        }
    }

    internal void Detach(CancelHandle token)
    {
        lock (gate) runs.Remove(token);
    }
}

/// <summary>What a TLS handshake negotiated, in the words of ab's report (SSL/TLS Protocol, Server Temp Key, TLS Server Name).</summary>
public sealed record TlsSession(string Protocol, string Cipher, int ServerKeyBits, int SecretBits, string TempKey, string ServerName)
{
    internal static unsafe TlsSession? Of(IntPtr r)
    {
        if (Native.ResultTlsSession(r, out TlsSessionNative s, (nuint)sizeof(TlsSessionNative)) != 0) return null;
        return new TlsSession(Text(s.Protocol, 16), Text(s.Cipher, 64), s.ServerKeyBits, s.SecretBits, Text(s.TempKey, 96), Text(s.ServerName, 256));
    }
    private static unsafe string Text(byte* chars, int size)
    {
        int n = 0;
        while (n < size && chars[n] != 0) ++n;
        return System.Text.Encoding.UTF8.GetString(chars, n);
    }
}

/// <summary>ab -f's names for the TLS version to speak.</summary>
public enum TlsVersion
{
    /// <summary>Any version both sides speak.</summary>
    All = 0,
    /// <summary>TLS 1.0 only.</summary>
    Tls1 = 0x0301,
    /// <summary>TLS 1.1 only.</summary>
    Tls11 = 0x0302,
    /// <summary>TLS 1.2 only.</summary>
    Tls12 = 0x0303,
    /// <summary>TLS 1.3 only.</summary>
    Tls13 = 0x0304,
}

/// <summary>A load test to run: a URL and its knobs (properties), checks and callbacks; Run() or RunAsync() runs it, as often as
/// you like but one run at a time (a second while one is in progress throws InvalidOperationException). Like the C plan it
/// wraps, it is used by one thread at a time: set its properties between runs, not during one.</summary>
public sealed class Plan : IDisposable
{
    private readonly PlanHandle handle;
    private bool requestsSet;  // a Duration without Requests leaves the count unlimited
    private int running;       // 1 while a run is in progress: the native plan serves one run at a time
    private Func<int, ulong, bool>? onResponse;
    private Action<ulong, ulong, TimeSpan>? onProgress;
    private Action<IntervalRow>? onInterval;
    private RequestWriter? onRequest;

    /// <summary>A plan for `url` (http:// or https://), checked now: one request over one keep-alive connection until set otherwise.</summary>
    public Plan(string url)
    {
        MicrobenchException.Check(Native.PlanCreate(url, out handle));
    }

    /// <summary>The URL to load, checked now (http:// or https://).</summary>
    public string Url { set => MicrobenchException.Check(Native.PlanSetUrl(handle, value)); }
    /// <summary>How many requests (default 1; with a Duration and no Requests: as many as fit, like ab's -t).
    /// With both, whichever limit comes first.</summary>
    public ulong Requests
    {
        set
        {
            MicrobenchException.Check(Native.PlanSetRequests(handle, value));
            requestsSet = true;
        }
    }
    /// <summary>Run this long (zero: no time limit); without Requests, the count is unlimited.</summary>
    public TimeSpan Duration
    {
        set
        {
            MicrobenchException.Check(Native.PlanSetDurationMs(handle, Time.Ms(value, nameof(Duration))));
            if (!requestsSet) MicrobenchException.Check(Native.PlanSetRequests(handle, value > TimeSpan.Zero ? 0UL : 1UL));
        }
    }
    /// <summary>Connections at once (ab -c; default 1).</summary>
    public uint Concurrency { set => MicrobenchException.Check(Native.PlanSetConcurrency(handle, value)); }
    /// <summary>Worker threads the connections are spread over (default 1).</summary>
    public uint Threads { set => MicrobenchException.Check(Native.PlanSetThreads(handle, value)); }
    /// <summary>HTTP/1.1 persistent connections (default on; ab -k).</summary>
    public bool KeepAlive { set => MicrobenchException.Check(Native.PlanSetKeepAlive(handle, value ? 1 : 0)); }
    /// <summary>Requests in flight on one keep-alive connection (default 1: no pipelining).</summary>
    public uint Pipeline { set => MicrobenchException.Check(Native.PlanSetPipeline(handle, value)); }
    /// <summary>Per request, and for connecting (SetTimeouts for two different ones).</summary>
    public TimeSpan Timeout { set => SetTimeouts(value, value); }
    /// <summary>A timeout per request and one for connecting.</summary>
    public void SetTimeouts(TimeSpan request, TimeSpan connect) =>
        MicrobenchException.Check(Native.PlanSetTimeoutMs(handle, Time.Ms(request, nameof(request)), Time.Ms(connect, nameof(connect))));
    /// <summary>How long requests in flight may finish once the duration ends.</summary>
    public TimeSpan Drain { set => MicrobenchException.Check(Native.PlanSetDrainMs(handle, Time.Ms(value, nameof(Drain)))); }
    /// <summary>The request method (default GET).</summary>
    public string Method { set => MicrobenchException.Check(Native.PlanSetMethod(handle, value)); }
    /// <summary>Local address(es) to connect from: one, a list "a,b", IPv4 ranges "a-b"; connections take them in turn.</summary>
    public string BindAddress { set => MicrobenchException.Check(Native.PlanSetBindAddress(handle, value)); }
    /// <summary>curl's --connect-to, "HOST:PORT:ADDR:PORT": connect to ADDR:PORT when the URL names HOST:PORT (the Host
    /// header, SNI and Verify still name HOST); each part may be empty; the first rule that matches applies.</summary>
    public void AddConnectTo(string rule) => MicrobenchException.Check(Native.PlanAddConnectTo(handle, rule));
    /// <summary>k6's stages at a fixed rate: over `duration`, the rate ramps linearly from where the last stage left it (from
    /// Rate, else 0) to `perSecond`; a stage with the last one's rate holds. The run lasts their total (each stage sets
    /// Duration to it).</summary>
    public void AddStage(TimeSpan duration, double perSecond) =>
        MicrobenchException.Check(Native.PlanAddStage(handle, Time.Ms(duration, nameof(duration)), perSecond));
    /// <summary>Removes every stage.</summary>
    public void ClearStages() => MicrobenchException.Check(Native.PlanClearStages(handle));
    /// <summary>curl's --unix-socket: every connection goes to the Unix socket at this path (1 to 107 bytes) instead of
    /// the URL's host and port; the URL still gives the Host header and the path. null or "": TCP again.</summary>
    public string? UnixSocket
    {
        set
        {
            if (value is not null && value.Contains('\0')) throw new ArgumentException("a Unix socket path holds no NUL", nameof(value));
            MicrobenchException.Check(Native.PlanSetUnixSocket(handle, value));
        }
    }
    /// <summary>ab's rule (default on): a body length unlike the first response's is a failure.</summary>
    public bool LengthCheck { set => MicrobenchException.Check(Native.PlanSetLengthCheck(handle, value ? 1 : 0)); }
    /// <summary>May the run raise the soft open-file limit for its connections (default off)?</summary>
    public bool RaiseFdLimit { set => MicrobenchException.Check(Native.PlanSetRaiseFdLimit(handle, value ? 1 : 0)); }
    /// <summary>SO_SNDBUF and SO_RCVBUF (ab -b); 0: the kernel's.</summary>
    public uint SocketBufferBytes { set => MicrobenchException.Check(Native.PlanSetSocketBufferBytes(handle, value)); }
    /// <summary>Also resend a non-idempotent request (POST) that met a closed keep-alive connection (default off).</summary>
    public bool ResendNonIdempotent { set => MicrobenchException.Check(Native.PlanSetResendNonIdempotent(handle, value ? 1 : 0)); }
    /// <summary>TLS for https:// (OpenSSL 3's libssl.so.3, loaded at run time): the version (ab -f), OpenSSL cipher
    /// names (ab -Z), a PEM with the client's chain and key (ab -E), and whether to send SNI (ab -I: false).</summary>
    public void SetTls(TlsVersion version = TlsVersion.All, string? ciphers = null, string? certificateFile = null, bool serverName = true) =>
        MicrobenchException.Check(Native.PlanSetTls(handle, (int)version, ciphers, certificateFile, serverName ? 1 : 0));
    /// <summary>Check the server's certificate and its name (off by default, as ab), trusting caFile (null: the system's).</summary>
    public void SetTlsVerify(bool on, string? caFile = null) => MicrobenchException.Check(Native.PlanSetTlsVerify(handle, on ? 1 : 0, caFile));
    /// <summary>Resume TLS sessions instead of a full handshake per connection: each thread keeps the tickets servers
    /// send and offers a TLS 1.3 one once (Result.TlsNoSession: full handshakes made with none at hand).</summary>
    public bool TlsResume { set => MicrobenchException.Check(Native.PlanSetTlsResume(handle, value ? 1 : 0)); }
    /// <summary>The libssl.so.3 to load for https:// (null: MICROBENCH_LIBSSL, else the system's).</summary>
    public string? Libssl { set => MicrobenchException.Check(Native.PlanSetLibssl(handle, value)); }
    /// <summary>Every body must be exactly n!, as text or as JSON {"factorial": n!}.</summary>
    public uint CheckFactorial { set => MicrobenchException.Check(Native.PlanCheckFactorial(handle, value)); }
    /// <summary>Every body must be exactly n! of its own target's n (/factorial/{n} or /factorial?n=N); Result.FactorialVerdict
    /// says where answers turn wrong.</summary>
    public void CheckFactorialOfEachTarget() => MicrobenchException.Check(Native.PlanCheckFactorialOfEachTarget(handle));
    /// <summary>Adds a target: a URL of the plan's origin, with its own method and body (null: the plan's).</summary>
    public void AddTarget(string url, string? method = null, byte[]? body = null) =>
        MicrobenchException.Check(Native.PlanAddTarget(handle, url, method, body, (nuint)(body?.Length ?? 0)));
    /// <summary>The targets of a vegeta targets file (its HTTP format or JSON lines) replace the plan's; a fault is a
    /// MicrobenchException whose message names the file's line and column.</summary>
    public void SetTargetsFile(string path)
    {
        int status = Native.PlanSetTargetsFile(handle, path, out nuint line, out nuint column);
        if (status != 0)
            throw new MicrobenchException(status, (line != 0 ? $"{path}:{line}:{column}: " : $"{path}: ") +
                                                  Marshal.PtrToStringUTF8(Native.StatusMessage(status)));
    }
    /// <summary>{A..B} and {a,b,c} in the URL stand for its targets (default off: sent as written).</summary>
    public bool UrlRanges { set => MicrobenchException.Check(Native.PlanSetUrlRanges(handle, value ? 1 : 0)); }
    /// <summary>Each target exactly once: the run's count is the number of targets.</summary>
    public bool EachOnce { set => MicrobenchException.Check(Native.PlanSetEachOnce(handle, value ? 1 : 0)); }
    /// <summary>Keep what each target got, in Result.Targets.</summary>
    public bool ByTarget { set => MicrobenchException.Check(Native.PlanSetByTarget(handle, value ? 1 : 0)); }
    /// <summary>How each request picks its target. The seed is the plan's one seed, which SetArrivals sets too: the
    /// later call's seed is the one the order and Poisson arrivals both use.</summary>
    public void SetOrder(TargetOrder order, ulong seed = 0) => MicrobenchException.Check(Native.PlanSetOrder(handle, order, seed));
    /// <summary>The statuses a response may have to pass (default: any).</summary>
    public int[] ExpectStatus { set => MicrobenchException.Check(Native.PlanExpectStatus(handle, value, (nuint)value.Length)); }
    /// <summary>Requests per second on a fixed schedule (the open model); 0: a closed loop.</summary>
    public double Rate { set => MicrobenchException.Check(Native.PlanSetRate(handle, value)); }
    /// <summary>At a fixed rate: how late a request may go (0 to 10 ms) so that one wake of its worker
    /// thread sends it with the requests due after it; each is still timed from its own intended time.</summary>
    public TimeSpan MaxBatchLag
    {
        set
        {
            if (value < TimeSpan.Zero) throw new ArgumentOutOfRangeException(nameof(value), "a batch lag is from 0 to 10 ms");
            MicrobenchException.Check(Native.PlanSetMaxBatchLagUs(handle, (long)Math.Round(value.TotalMicroseconds)));
        }
    }
    /// <summary>Rows in Result.Intervals every this long (10 ms to 1 h; zero: none). Default: 1 s at a fixed rate.</summary>
    public TimeSpan Interval
    {
        set
        {
            MicrobenchException.Check(Native.PlanSetIntervalMs(handle, Time.Ms(value, nameof(Interval))));
            intervalSet = true;
        }
    }
    private bool intervalSet;
    /// <summary>Keep each interval's histograms: in Result.Json (merged results' intervals get exact percentiles)
    /// and as Result.Hlog, HdrHistogram's interval log. Without an Interval of your own, rows are 1 s long (as the
    /// command line's --hlog and Python's interval_histograms give them).</summary>
    public bool IntervalHistograms
    {
        set
        {
            MicrobenchException.Check(Native.PlanSetIntervalHistograms(handle, value ? 1 : 0));
            if (value && !intervalSet) MicrobenchException.Check(Native.PlanSetIntervalMs(handle, 1000));
        }
    }
    /// <summary>Start at this wall-clock time (generators on several machines together); nothing connects before it.</summary>
    public DateTimeOffset StartAt { set => MicrobenchException.Check(Native.PlanSetStartAtUnixMs(handle, value.ToUnixTimeMilliseconds())); }

    /// <summary>Called on worker threads (several at once) for every whole response: false fails it as Failure.Check.</summary>
    public Func<int, ulong, bool>? OnResponse { set => onResponse = value; }
    /// <summary>Called on the thread that runs the plan (the caller of Run(), or RunAsync's own) with (ended, target, elapsed)
    /// every ProgressEvery.</summary>
    public Action<ulong, ulong, TimeSpan>? OnProgress { set => onProgress = value; }
    /// <summary>How often OnProgress is called (zero: not by time); default 0.1 s. Negative: ArgumentOutOfRangeException.</summary>
    public TimeSpan ProgressEvery
    {
        get => progressEvery;
        set { Time.Ms(value, nameof(ProgressEvery)); progressEvery = value; }
    }
    private TimeSpan progressEvery = TimeSpan.FromMilliseconds(100);
    /// <summary>Also called after every this many ended requests (0: by time only).</summary>
    public ulong ProgressEveryRequests { get; set; }
    /// <summary>Called with each interval as it closes, on the thread that runs the plan (the caller of Run(), or RunAsync's own).</summary>
    public Action<IntervalRow>? OnInterval { set => onInterval = value; }
    /// <summary>Writes each request, on worker threads (several at once), into room the engine keeps for it
    /// (RequestCapacity bytes): nothing is allocated per request. The URL still says where to connect.</summary>
    public RequestWriter? OnRequest { set => onRequest = value; }
    /// <summary>OnRequest's room for each request in flight: 16 bytes to 1 MiB (default 4096; else
    /// ArgumentOutOfRangeException). Run() refuses more than 1 GiB in all (Concurrency × Pipeline × room).</summary>
    public int RequestCapacity
    {
        get => requestCapacity;
        set
        {
            if (value < 16 || value > 1 << 20) throw new ArgumentOutOfRangeException(nameof(RequestCapacity), "the room is 16 bytes to 1 MiB");
            requestCapacity = value;
        }
    }
    private int requestCapacity = 4096;
    /// <summary>Stops the run when triggered from another thread.</summary>
    public Cancel? Cancel { get; set; }

    /// <summary>At a fixed rate: evenly spaced, or Poisson arrivals drawn from the seed.</summary>
    public void SetArrivals(Arrivals arrivals, ulong seed = 0) => MicrobenchException.Check(Native.PlanSetArrivals(handle, arrivals, seed));

    /// <summary>Adds a request header (ab -H), or replaces a default one.</summary>
    public void AddHeader(string name, string value) => MicrobenchException.Check(Native.PlanAddHeader(handle, name, value));
    /// <summary>The request body (ab -p) and its Content-Type.</summary>
    public void SetBody(byte[] body, string? contentType = null) =>
        MicrobenchException.Check(Native.PlanSetBody(handle, body, (nuint)body.Length, contentType));
    /// <summary>The request body as UTF-8 text, and its Content-Type.</summary>
    public void SetBody(string body, string? contentType = null) => SetBody(Encoding.UTF8.GetBytes(body), contentType);
    /// <summary>Every body must be exactly this UTF-8 text.</summary>
    public void CheckBodyEquals(string body) => CheckBodyEquals(Encoding.UTF8.GetBytes(body));
    /// <summary>Every body must be exactly these bytes.</summary>
    public void CheckBodyEquals(byte[] body) => MicrobenchException.Check(Native.PlanCheckBodyEquals(handle, body, (nuint)body.Length));
    /// <summary>Every body must start with this UTF-8 text.</summary>
    public void CheckBodyStartsWith(string prefix) => CheckBodyStartsWith(Encoding.UTF8.GetBytes(prefix));
    /// <summary>Every body must start with these bytes.</summary>
    public void CheckBodyStartsWith(byte[] prefix) => MicrobenchException.Check(Native.PlanCheckBodyStartsWith(handle, prefix, (nuint)prefix.Length));
    /// <summary>Every body must contain this UTF-8 text.</summary>
    public void CheckBodyContains(string part) => CheckBodyContains(Encoding.UTF8.GetBytes(part));
    /// <summary>Every body must contain these bytes.</summary>
    public void CheckBodyContains(byte[] part) => MicrobenchException.Check(Native.PlanCheckBodyContains(handle, part, (nuint)part.Length));
    /// <summary>Every body must match this POSIX extended regular expression (not .NET's Regex: found
    /// anywhere in the body, ^ and $ its ends, in the "C" locale) and be at most 1 MiB. One that is
    /// refused or does not compile throws plan_bad_regex with the reason, and the plan keeps the one
    /// before it.</summary>
    public void CheckBodyMatches(string regex)
    {
        if (regex.Contains('\0')) throw new ArgumentException("a regex holds no NUL character", nameof(regex));
        var why = new byte[256];
        int status = Native.PlanCheckBodyMatches(handle, regex, why, (nuint)why.Length);
        if (status != 0)
            throw new MicrobenchException(status, $"{Marshal.PtrToStringUTF8(Native.StatusMessage(status))}: " +
                                                  Encoding.UTF8.GetString(why, 0, Math.Max(0, Array.IndexOf(why, (byte)0))));
    }

    /// <summary>Makes this plan shard `index` (from 0) of `count` generators sharing it: its share of the
    /// requests, connections and rate (set those first); their schedules and seeds interleave.</summary>
    public void Divide(uint index, uint count) => MicrobenchException.Check(Native.PlanDivide(handle, index, count));

    /// <summary>Checks the plan (the URL, the request, the limits) without running it.</summary>
    public void Validate() => MicrobenchException.Check(Native.PlanValidate(handle));

    /// <summary>Runs the plan on this thread and returns what it measured; throws MicrobenchException when the plan cannot run, or the exception a callback threw.</summary>
    public Result Run() => Run(CancellationToken.None);

    /// <summary>Runs the plan on a thread of its own. Cancelling `cancellationToken` stops the run as Cancel.Trigger()
    /// does (mb_cancel): the task then completes with the partial Result, Cancelled true, as an interrupted ab prints
    /// its report; it faults with MicrobenchException when the plan cannot run, or with the exception a callback threw.
    /// Throws InvalidOperationException at once while another run of this plan is in progress.</summary>
    public Task<Result> RunAsync(CancellationToken cancellationToken = default)
    {
        Enter();  // before the task starts: a second run is refused at once, here
        try
        {
            return Task.Factory.StartNew(() => RunEntered(cancellationToken), CancellationToken.None, TaskCreationOptions.LongRunning,
                                         TaskScheduler.Default);
        }
        catch
        {
            Volatile.Write(ref running, 0);  // no thread for the run: nothing runs
            throw;
        }
    }

    private Result Run(CancellationToken cancellationToken)
    {
        Enter();
        return RunEntered(cancellationToken);
    }

    // One run, once Enter() has marked the plan running; leaves it not running, however the run ends.
    private Result RunEntered(CancellationToken cancellationToken)
    {
        try
        {
            return RunOnce(cancellationToken);
        }
        finally
        {
            Volatile.Write(ref running, 0);
        }
    }

    private void Enter()
    {
        if (Interlocked.Exchange(ref running, 1) != 0)
            throw new InvalidOperationException("this Plan is already running: a plan runs once at a time (make another Plan to run two at once)");
    }

    private Result RunOnce(CancellationToken cancellationToken)
    {
        ResultHandle? owned = null;
        try
        {
            WithCallbacks(cancellationToken, run => Native.Run(handle, out owned));
            return Result.Of(owned!);
        }
        finally
        {
            owned?.Dispose();
        }
    }

    /// <summary>The highest fixed rate the server holds with its response-time p99 (from each request's intended send
    /// time) within objective.MaxP99Ms: steps of this plan (its URL, connections, threads, keep-alive, checks and
    /// callbacks; not its count, duration or rate, which each step sets) at one rate each, for a warm-up and then a
    /// measured window; the rate doubles from StartRate while steps hold, then the gap between the highest held and the
    /// lowest failed rate is halved to Resolution; a step in which nothing completed (NoResponse, NoConnection) ends it.
    /// objective.OnStep is called after each step on this thread. Cancelling
    /// `cancellationToken` (or Cancel) ends the search with the steps so far, Cancelled true. Throws MicrobenchException
    /// when the objective or the plan cannot run (plan_bad_capacity_search…), or the exception a callback threw;
    /// InvalidOperationException while another run of this plan is in progress.</summary>
    public unsafe CapacityResult FindCapacity(CapacityObjective objective, CancellationToken cancellationToken = default)
    {
        ArgumentNullException.ThrowIfNull(objective);
        Enter();
        CapacityHandle? owned = null;
        try
        {
            WithCallbacks(cancellationToken, run =>
            {
                run.OnStep = objective.OnStep;
                CapacityObjectiveNative o = objective.ToNative();
                if (objective.OnStep is not null)
                {
                    o.OnStep = (IntPtr)(delegate* unmanaged<CapacityStepNative*, IntPtr, void>)&StepTrampoline;
                    o.OnStepUser = run.User;
                }
                return Native.FindCapacity(handle, in o, out owned);
            });
            return CapacityResult.Of(owned!);
        }
        finally
        {
            owned?.Dispose();
            Volatile.Write(ref running, 0);
        }
    }

    // Calls `call` (mb_run or mb_find_capacity on this plan) with this run's callbacks and cancel token set on the plan,
    // and clears them after; then throws what a callback threw, else what the call's status says.
    private unsafe void WithCallbacks(CancellationToken cancellationToken, Func<RunState, int> call)
    {
        using var run = new RunState(this);
        using var registration = cancellationToken.Register(() => Native.CancelTrigger(run.Token));
        MicrobenchException.Check(Native.PlanOnResponse(handle, onResponse is null ? null : &ResponseTrampoline, run.User));
        MicrobenchException.Check(Native.PlanOnProgress(handle, onProgress is null ? null : &ProgressTrampoline, run.User,
                                                        Time.Ms(ProgressEvery, nameof(ProgressEvery)), ProgressEveryRequests));
        MicrobenchException.Check(Native.PlanOnInterval(handle, onInterval is null ? null : &IntervalTrampoline, run.User));
        MicrobenchException.Check(Native.PlanSetRequestFn(handle, onRequest is null ? null : &RequestTrampoline, run.User,
                                                          (nuint)RequestCapacity));
        MicrobenchException.Check(Native.PlanSetCancel(handle, run.Token.DangerousGetHandle()));
        Cancel? cancel = Cancel;
        cancel?.Attach(run.Token);
        int status;
        try
        {
            status = call(run);
        }
        finally
        {
            cancel?.Detach(run.Token);
            // The plan outlives this run's callbacks and token: it keeps no pointer to them.
            Native.PlanOnResponse(handle, null, IntPtr.Zero);
            Native.PlanOnProgress(handle, null, IntPtr.Zero, 0, 0);
            Native.PlanOnInterval(handle, null, IntPtr.Zero);
            Native.PlanSetRequestFn(handle, null, IntPtr.Zero, 0);
            Native.PlanSetCancel(handle, IntPtr.Zero);
        }
        run.ThrowIfStopped();
        MicrobenchException.Check(status);
    }

    // One run's callbacks, its own cancel token, and the first exception a callback threw.
    private sealed class RunState : IDisposable
    {
        private GCHandle self;
        private Exception? error;

        public RunState(Plan plan)
        {
            Plan = plan;
            MicrobenchException.Check(Native.CancelCreate(out CancelHandle token));
            Token = token;
            self = GCHandle.Alloc(this);
        }

        public Plan Plan { get; }
        public CancelHandle Token { get; }
        public Action<CapacityStep>? OnStep { get; set; }
        public IntPtr User => GCHandle.ToIntPtr(self);
        public bool Stopped => Volatile.Read(ref error) is not null;

        public void Stop(Exception e)
        {
            Interlocked.CompareExchange(ref error, e, null);
            Native.CancelTrigger(Token);
        }

        public void ThrowIfStopped()
        {
            if (error is not null) ExceptionDispatchInfo.Capture(error).Throw();
        }

        public static RunState From(IntPtr user) => (RunState)GCHandle.FromIntPtr(user).Target!;

        public void Dispose()
        {
            if (self.IsAllocated) self.Free();
            Token.Dispose();
        }
    }

    // The C callbacks. An exception must not cross into C: it stops the run and Run() throws it;
    // once stopped, no callback is called again.
    [UnmanagedCallersOnly]
    private static int ResponseTrampoline(int status, ulong bodyBytes, IntPtr user)
    {
        var run = RunState.From(user);
        if (run.Stopped) return 0;
        try
        {
            return run.Plan.onResponse!(status, bodyBytes) ? 1 : 0;
        }
        catch (Exception e)
        {
            run.Stop(e);
            return 0;
        }
    }

    [UnmanagedCallersOnly]
    private static unsafe nuint RequestTrampoline(RequestCallNative* call, IntPtr user)
    {
        var run = RunState.From(user);
        if (run.Stopped) return 0;
        try
        {
            uint target = call->Target;
            int n = run.Plan.onRequest!(new Span<byte>(call->Data, (int)call->Capacity), call->Index, ref target,
                                        new ReadOnlySpan<byte>(call->Prepared, (int)call->PreparedLength));
            if (n < 0 || (nuint)n > call->Capacity)
                throw new InvalidOperationException($"OnRequest returned {n}: a request's length is 0 to its room, {call->Capacity}");
            call->Target = target;
            return (nuint)n;
        }
        catch (Exception e)
        {
            run.Stop(e);
            return 0;
        }
    }

    [UnmanagedCallersOnly]
    private static void ProgressTrampoline(ulong ended, ulong target, long elapsedNs, IntPtr user)
    {
        var run = RunState.From(user);
        if (run.Stopped) return;
        try
        {
            run.Plan.onProgress!(ended, target, TimeSpan.FromTicks(elapsedNs / 100));
        }
        catch (Exception e)
        {
            run.Stop(e);
        }
    }

    [UnmanagedCallersOnly]
    private static unsafe void StepTrampoline(CapacityStepNative* step, IntPtr user)
    {
        var run = RunState.From(user);
        if (run.Stopped) return;
        try
        {
            run.OnStep!(CapacityStep.Of(*step));
        }
        catch (Exception e)
        {
            run.Stop(e);
        }
    }

    [UnmanagedCallersOnly]
    private static unsafe void IntervalTrampoline(Interval* row, IntPtr user)
    {
        var run = RunState.From(user);
        if (run.Stopped) return;
        try
        {
            run.Plan.onInterval!(IntervalRow.Of(*row));
        }
        catch (Exception e)
        {
            run.Stop(e);
        }
    }

    /// <summary>Releases the native handle (the finalizer does it if you forget).</summary>
    public void Dispose() => handle.Dispose();
}

/// <summary>What the reference server allows its clients; a property left null keeps the library's default.</summary>
public sealed class ServerLimits
{
    /// <summary>A request must be whole within this of its first byte (default 60 s; zero: never).</summary>
    public TimeSpan? HeaderTimeout { get; init; }
    /// <summary>A connection that reads and writes nothing for this is closed, but not while /delay or /stall holds its
    /// answer (default 75 s; zero: never).</summary>
    public TimeSpan? IdleTimeout { get; init; }
    /// <summary>At most this many connections at once (default 0: the open-file limit less 64); past it the one quiet
    /// longest on the accepting thread is closed, or the new one when none is quiet.</summary>
    public ulong? MaxConnections { get; init; }

    internal ServerLimitsNative ToNative()
    {
        Native.ServerLimitsInit(out ServerLimitsNative n);
        if (HeaderTimeout is { } header) n.HeaderTimeoutMs = Time.Ms(header, nameof(HeaderTimeout));
        if (IdleTimeout is { } idle) n.IdleTimeoutMs = Time.Ms(idle, nameof(IdleTimeout));
        if (MaxConnections is { } max) n.MaxConnections = max;
        return n;
    }
}

/// <summary>What the reference server counted (mb_server_count), as its /stats says it.</summary>
public enum ServerCount
{
    /// <summary>Requests answered (/stats itself is not counted).</summary>
    Requests = 0,
    /// <summary>Connections accepted.</summary>
    Connections = 1,
    /// <summary>Connections open now.</summary>
    Open = 2,
    /// <summary>Requests answered 400 and closed.</summary>
    BadRequests = 3,
    /// <summary>Connections closed: a request not whole within ServerLimits.HeaderTimeout.</summary>
    HeaderTimeouts = 4,
    /// <summary>Connections closed: nothing read or written within ServerLimits.IdleTimeout.</summary>
    IdleTimeouts = 5,
    /// <summary>Connections closed at the cap to make room for a new one.</summary>
    Evicted = 6,
    /// <summary>New connections closed at the cap, none being quiet.</summary>
    Refused = 7,
    /// <summary>Times a thread stopped accepting a moment: no descriptor or buffer to give.</summary>
    ListenPauses = 8,
}

/// <summary>The reference server on a loopback port (0: a free one) until disposed.</summary>
public sealed class Server : IDisposable
{
    private readonly ServerHandle handle;

    /// <summary>Starts the server on host ("127.0.0.1" or "::1") and port (0: a free one) with `threads` threads, under
    /// `limits` (null: the defaults).</summary>
    public Server(string host = "127.0.0.1", ushort port = 0, uint threads = 1, ServerLimits? limits = null)
    {
        MicrobenchException.Check(Native.ServerStartLimited(host, port, null, threads, (limits ?? new()).ToNative(), out handle));
        Host = host;
        Port = Native.ServerPort(handle);
    }

    private Server(ServerHandle handle, string path)
    {
        this.handle = handle;
        Host = "localhost";
        UnixSocket = path;
    }

    /// <summary>Starts the server on the Unix socket at `path` (1 to 107 bytes): a stale socket file there is replaced, a
    /// live one refused; the file is removed when the server is disposed. Run against it with Plan.UnixSocket.</summary>
    public static Server OnUnixSocket(string path, uint threads = 1, ServerLimits? limits = null)
    {
        if (path.Contains('\0')) throw new ArgumentException("a Unix socket path holds no NUL", nameof(path));
        MicrobenchException.Check(Native.ServerStartLimited(null, 0, path, threads, (limits ?? new()).ToNative(), out ServerHandle started));
        return new Server(started, path);
    }

    /// <summary>The address it listens on: "127.0.0.1" or "::1"; "localhost" on a Unix socket.</summary>
    public string Host { get; }
    /// <summary>The port it listens on; 0 on a Unix socket.</summary>
    public ushort Port { get; }
    /// <summary>The Unix socket's path it listens on; null on TCP.</summary>
    public string? UnixSocket { get; }
    /// <summary>Requests answered so far.</summary>
    public ulong Requests => Native.ServerRequests(handle);
    /// <summary>What it counted so far.</summary>
    public ulong Count(ServerCount which) => Native.ServerCount(handle, (int)which);
    /// <summary>http://HOST:PORT/path, an IPv6 host in brackets; 127.0.0.1 when it listens on every interface (host "");
    /// http://localhost/path on a Unix socket.</summary>
    public string Url(string path) => UnixSocket is not null
        ? "http://localhost" + path
        : string.Create(CultureInfo.InvariantCulture, $"http://{(Host.Contains(':') ? $"[{Host}]" : Host.Length == 0 ? "127.0.0.1" : Host)}:{Port}{path}");

    /// <summary>Releases the native handle (the finalizer does it if you forget).</summary>
    public void Dispose() => handle.Dispose();
}

// Native.cs — the C API of microbench.h as P/Invoke declarations (source-generated marshalling):
// its handles as SafeHandles (released by Dispose, or by the finalizer when a caller forgets),
// its enums with their numbers, and where the library is found: MICROBENCH_LIBRARY (a path),
// else the runtime's usual probing — a package's runtimes/<rid>/native/ first, then the loader's paths.
using System.Reflection;
using System.Runtime.InteropServices;

namespace Microbench;

/// <summary>An owned mb_ handle: destroyed once, by Dispose or by the finalizer.</summary>
internal abstract class NativeHandle() : SafeHandle(IntPtr.Zero, ownsHandle: true)
{
    public override bool IsInvalid => handle == IntPtr.Zero;
}

internal sealed class PlanHandle : NativeHandle
{
    protected override bool ReleaseHandle() { Native.PlanDestroy(handle); return true; }
}

internal sealed class ResultHandle : NativeHandle
{
    protected override bool ReleaseHandle() { Native.ResultDestroy(handle); return true; }
}

internal sealed class ServerHandle : NativeHandle
{
    protected override bool ReleaseHandle() { Native.ServerStop(handle); return true; }
}

internal sealed class SuiteHandle : NativeHandle
{
    protected override bool ReleaseHandle() { Native.SuiteDestroy(handle); return true; }
}

internal sealed class CancelHandle : NativeHandle
{
    protected override bool ReleaseHandle() { Native.CancelDestroy(handle); return true; }
}

internal sealed class HlogHandle : NativeHandle
{
    protected override bool ReleaseHandle() { Native.HlogDestroy(handle); return true; }
}

internal sealed class CapacityHandle : NativeHandle
{
    protected override bool ReleaseHandle() { Native.CapacityDestroy(handle); return true; }
}

/// <summary>mb_count: the counters of a result.</summary>
internal enum Count
{
    Ended = 0, Completed = 1, Failed = 2, Unfinished = 3, Non2xx = 4, KeepAliveRequests = 5, Retries = 6, Connects = 7,
    ServerCloses = 8, BytesSent = 9, BytesReceived = 10, BodyBytes = 11, DocumentLength = 12, ConcurrencyPeak = 13,
    LocalWaits = 14, ConnectionWaits = 15, ScheduleMissed = 16, TlsHandshakes = 17, TlsResumed = 18, TlsHandshakeFailures = 19,
    RequestFnFaults = 20,
    BacklogWaits = 21,
    TlsNoSession = 22,
}

/// <summary>mb_timing: ab's timing columns.</summary>
internal enum Column
{
    Connect = 0, Waiting = 1, Processing = 2, Total = 3, Response = 4, ScheduleLag = 5, TlsHandshake = 6,
}

/// <summary>mb_tls_session, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct TlsSessionNative
{
    public fixed byte Protocol[16];
    public fixed byte Cipher[64];
    public int ServerKeyBits, SecretBits;
    public fixed byte TempKey[96];
    public fixed byte ServerName[256];
}

/// <summary>mb_capacity_step, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct CapacityStepNative
{
    public double TargetRate, AchievedRate;
    public long WindowNs;
    public ulong Completed, Failed;
    public long P50Ns, P99Ns, P999Ns, MaxNs, LagP99Ns;
    public ulong ConnectionWaits, ScheduleMissed;
    public int Verdict;
    public int GeneratorSuspect;
    public int Retry;
}

/// <summary>mb_server_limits, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct ServerLimitsNative
{
    public nuint Size;
    public long HeaderTimeoutMs, IdleTimeoutMs;
    public ulong MaxConnections;
}

/// <summary>mb_capacity_objective, field for field (OnStep: a delegate* unmanaged&lt;CapacityStepNative*, IntPtr, void&gt;).</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct CapacityObjectiveNative
{
    public nuint Size;
    public double MaxP99Ms;
    public double MaxFailureRatio;
    public double MinRateRatio;
    public double StartRate;
    public double MaxRate;
    public double Resolution;
    public long WarmupMs;
    public long StepMs;
    public ulong MinResponses;
    public long CooldownMs;
    public uint MaxSteps;
    public IntPtr OnStep;
    public IntPtr OnStepUser;
}

/// <summary>mb_interval, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct Interval
{
    public long StartNs, DurationNs;
    public ulong Sent, Ended, Completed, Failed;
    public double TargetRequests, RatePerSecond;
    public long P50Ns, P90Ns, P99Ns, MaxNs, LagP99Ns, LagMaxNs;
    public double TargetPerSecond;
}

/// <summary>mb_stage, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct StageNative
{
    public long StartMs, DurationMs;
    public double FromPerSecond, ToPerSecond, Intended;
    public ulong Sent, Completed, Failed;
    public long P50Ns, P99Ns;
}

/// <summary>mb_request_call, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
internal unsafe struct RequestCallNative
{
    public byte* Data;
    public nuint Capacity;
    public ulong Index;
    public uint Worker, Target;
    public byte* Prepared;
    public nuint PreparedLength;
}

/// <summary>mb_target_row, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct TargetRowNative
{
    public ulong Index, Requests, Completed, Failed, Unfinished, Non2xx, Wrong;
    public long P50Ns, P99Ns;
}

/// <summary>mb_hlog_tag, field for field.</summary>
[StructLayout(LayoutKind.Sequential)]
internal struct HlogTag
{
    public IntPtr Tag;
    public ulong Intervals, Count;
    public double StartS, EndS;
    public long Min, Max;
    public double Mean, Stddev;
}

internal static partial class Native
{
    private const string Lib = "microbench";

    static Native()
    {
        NativeLibrary.SetDllImportResolver(typeof(Native).Assembly, Resolve);
    }

    private static IntPtr Resolve(string name, Assembly assembly, DllImportSearchPath? path)
    {
        if (name != Lib) return IntPtr.Zero;
        string? explicitPath = Environment.GetEnvironmentVariable("MICROBENCH_LIBRARY");
        if (!string.IsNullOrEmpty(explicitPath)) return NativeLibrary.Load(explicitPath);
        return NativeLibrary.TryLoad("libmicrobench.so", assembly, path, out IntPtr handle) ? handle : IntPtr.Zero;
    }

    [LibraryImport(Lib, EntryPoint = "mb_version")] internal static partial IntPtr Version();
    [LibraryImport(Lib, EntryPoint = "mb_version_number")] internal static partial int VersionNumber();
    [LibraryImport(Lib, EntryPoint = "mb_status_name")] internal static partial IntPtr StatusName(int status);
    [LibraryImport(Lib, EntryPoint = "mb_status_message")] internal static partial IntPtr StatusMessage(int status);

    [LibraryImport(Lib, EntryPoint = "mb_plan_create", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int PlanCreate(string url, out PlanHandle plan);
    [LibraryImport(Lib, EntryPoint = "mb_plan_destroy")] internal static partial void PlanDestroy(IntPtr plan);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_url", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int PlanSetUrl(PlanHandle plan, string url);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_method", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int PlanSetMethod(PlanHandle plan, string method);
    [LibraryImport(Lib, EntryPoint = "mb_plan_add_header", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int PlanAddHeader(PlanHandle plan, string name, string value);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_body", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int PlanSetBody(PlanHandle plan, byte[] data, nuint size, string? contentType);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_requests")] internal static partial int PlanSetRequests(PlanHandle plan, ulong requests);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_duration_ms")] internal static partial int PlanSetDurationMs(PlanHandle plan, long ms);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_concurrency")] internal static partial int PlanSetConcurrency(PlanHandle plan, uint n);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_threads")] internal static partial int PlanSetThreads(PlanHandle plan, uint n);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_keep_alive")] internal static partial int PlanSetKeepAlive(PlanHandle plan, int on);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_pipeline")] internal static partial int PlanSetPipeline(PlanHandle plan, uint depth);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_timeout_ms")] internal static partial int PlanSetTimeoutMs(PlanHandle plan, long request, long connect);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_drain_ms")] internal static partial int PlanSetDrainMs(PlanHandle plan, long ms);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_bind_address", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int PlanSetBindAddress(PlanHandle plan, string addresses);
    [LibraryImport(Lib, EntryPoint = "mb_plan_add_connect_to", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int PlanAddConnectTo(PlanHandle plan, string? rule);
    [LibraryImport(Lib, EntryPoint = "mb_plan_add_stage")] internal static partial int PlanAddStage(PlanHandle plan, long durationMs, double perSecond);
    [LibraryImport(Lib, EntryPoint = "mb_plan_clear_stages")] internal static partial int PlanClearStages(PlanHandle plan);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_unix_socket", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int PlanSetUnixSocket(PlanHandle plan, string? path);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_length_check")] internal static partial int PlanSetLengthCheck(PlanHandle plan, int on);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_raise_fd_limit")] internal static partial int PlanSetRaiseFdLimit(PlanHandle plan, int on);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_socket_buffer_bytes")] internal static partial int PlanSetSocketBufferBytes(PlanHandle plan, uint bytes);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_resend_non_idempotent")] internal static partial int PlanSetResendNonIdempotent(PlanHandle plan, int on);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_tls", StringMarshalling = StringMarshalling.Utf8)] internal static partial int PlanSetTls(PlanHandle plan, int version, string? ciphers, string? certificateFile, int serverName);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_tls_verify", StringMarshalling = StringMarshalling.Utf8)] internal static partial int PlanSetTlsVerify(PlanHandle plan, int on, string? caFile);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_tls_resume")] internal static partial int PlanSetTlsResume(PlanHandle plan, int on);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_libssl", StringMarshalling = StringMarshalling.Utf8)] internal static partial int PlanSetLibssl(PlanHandle plan, string? path);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_rate")] internal static partial int PlanSetRate(PlanHandle plan, double perSecond);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_max_batch_lag_us")] internal static partial int PlanSetMaxBatchLagUs(PlanHandle plan, long us);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_arrivals")] internal static partial int PlanSetArrivals(PlanHandle plan, Arrivals arrivals, ulong seed);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_interval_ms")] internal static partial int PlanSetIntervalMs(PlanHandle plan, long ms);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_interval_histograms")] internal static partial int PlanSetIntervalHistograms(PlanHandle plan, int on);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_start_at_unix_ms")] internal static partial int PlanSetStartAtUnixMs(PlanHandle plan, long unixMs);
    [LibraryImport(Lib, EntryPoint = "mb_plan_divide")] internal static partial int PlanDivide(PlanHandle plan, uint index, uint count);
    [LibraryImport(Lib, EntryPoint = "mb_plan_expect_status")] internal static partial int PlanExpectStatus(PlanHandle plan, int[] codes, nuint count);
    [LibraryImport(Lib, EntryPoint = "mb_plan_check_body_equals")] internal static partial int PlanCheckBodyEquals(PlanHandle plan, byte[] data, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_plan_check_body_starts_with")] internal static partial int PlanCheckBodyStartsWith(PlanHandle plan, byte[] data, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_plan_check_body_contains")] internal static partial int PlanCheckBodyContains(PlanHandle plan, byte[] data, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_plan_check_body_matches", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int PlanCheckBodyMatches(PlanHandle plan, string regex, byte[] why, nuint whySize);
    [LibraryImport(Lib, EntryPoint = "mb_plan_check_factorial")] internal static partial int PlanCheckFactorial(PlanHandle plan, uint n);
    [LibraryImport(Lib, EntryPoint = "mb_plan_add_target", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int PlanAddTarget(PlanHandle plan, string url, string? method, byte[]? body, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_targets_file", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int PlanSetTargetsFile(PlanHandle plan, string path, out nuint line, out nuint column);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_url_ranges")] internal static partial int PlanSetUrlRanges(PlanHandle plan, int on);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_order")] internal static partial int PlanSetOrder(PlanHandle plan, TargetOrder order, ulong seed);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_each_once")] internal static partial int PlanSetEachOnce(PlanHandle plan, int on);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_by_target")] internal static partial int PlanSetByTarget(PlanHandle plan, int on);
    [LibraryImport(Lib, EntryPoint = "mb_plan_check_factorial_of_each_target")]
    internal static partial int PlanCheckFactorialOfEachTarget(PlanHandle plan);
    [LibraryImport(Lib, EntryPoint = "mb_plan_on_response")]
    internal static unsafe partial int PlanOnResponse(PlanHandle plan, delegate* unmanaged<int, ulong, IntPtr, int> fn, IntPtr user);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_request_fn")]
    internal static unsafe partial int PlanSetRequestFn(PlanHandle plan, delegate* unmanaged<RequestCallNative*, IntPtr, nuint> fn,
                                                        IntPtr user, nuint capacity);
    [LibraryImport(Lib, EntryPoint = "mb_plan_on_progress")]
    internal static unsafe partial int PlanOnProgress(PlanHandle plan, delegate* unmanaged<ulong, ulong, long, IntPtr, void> fn, IntPtr user,
                                                      long everyMs, ulong everyRequests);
    [LibraryImport(Lib, EntryPoint = "mb_plan_on_interval")]
    internal static unsafe partial int PlanOnInterval(PlanHandle plan, delegate* unmanaged<Interval*, IntPtr, void> fn, IntPtr user);
    [LibraryImport(Lib, EntryPoint = "mb_plan_set_cancel")] internal static partial int PlanSetCancel(PlanHandle plan, IntPtr cancel);
    [LibraryImport(Lib, EntryPoint = "mb_plan_validate")] internal static partial int PlanValidate(PlanHandle plan);
    [LibraryImport(Lib, EntryPoint = "mb_run")] internal static partial int Run(PlanHandle plan, out ResultHandle result);

    // A result is read through its pointer: owned (a ResultHandle, kept alive by the caller) or a suite's.
    [LibraryImport(Lib, EntryPoint = "mb_result_destroy")] internal static partial void ResultDestroy(IntPtr result);
    [LibraryImport(Lib, EntryPoint = "mb_result_count")] internal static partial ulong ResultCount(IntPtr result, Count which);
    [LibraryImport(Lib, EntryPoint = "mb_result_failures")] internal static partial ulong ResultFailures(IntPtr result, Failure reason);
    [LibraryImport(Lib, EntryPoint = "mb_result_status_count")] internal static partial ulong ResultStatusCount(IntPtr result, int status);
    [LibraryImport(Lib, EntryPoint = "mb_result_cancelled")] internal static partial int ResultCancelled(IntPtr result);
    [LibraryImport(Lib, EntryPoint = "mb_result_elapsed_ns")] internal static partial long ResultElapsedNs(IntPtr result);
    [LibraryImport(Lib, EntryPoint = "mb_result_requests_per_second")] internal static partial double ResultRequestsPerSecond(IntPtr result);
    [LibraryImport(Lib, EntryPoint = "mb_result_goodput_per_second")] internal static partial double ResultGoodputPerSecond(IntPtr result);
    [LibraryImport(Lib, EntryPoint = "mb_result_server_software")] internal static partial IntPtr ResultServerSoftware(IntPtr result);
    [LibraryImport(Lib, EntryPoint = "mb_result_connected_to")] internal static partial IntPtr ResultConnectedTo(IntPtr result);
    [LibraryImport(Lib, EntryPoint = "mb_result_tls_session")] internal static partial int ResultTlsSession(IntPtr result, out TlsSessionNative session, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_result_tls_failure_reason_count")] internal static partial nuint ResultTlsFailureReasonCount(IntPtr result);
    [LibraryImport(Lib, EntryPoint = "mb_result_tls_failure_reason")] internal static partial IntPtr ResultTlsFailureReason(IntPtr result, nuint index);
    [LibraryImport(Lib, EntryPoint = "mb_result_target_count")] internal static partial ulong ResultTargetCount(IntPtr result);
    [LibraryImport(Lib, EntryPoint = "mb_result_target_row_count")] internal static partial nuint ResultTargetRowCount(IntPtr result);
    [LibraryImport(Lib, EntryPoint = "mb_result_target_row")]
    internal static partial int ResultTargetRow(IntPtr result, nuint row, out TargetRowNative target, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_result_target_name")] internal static partial IntPtr ResultTargetName(IntPtr result, nuint row);
    [LibraryImport(Lib, EntryPoint = "mb_result_factorial_verdict")]
    internal static partial nuint ResultFactorialVerdict(IntPtr result, byte[]? buf, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_result_stage_count")] internal static partial nuint ResultStageCount(IntPtr result);
    [LibraryImport(Lib, EntryPoint = "mb_result_stage")] internal static partial int ResultStage(IntPtr result, nuint index, out StageNative stage, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_result_interval_count")] internal static partial nuint ResultIntervalCount(IntPtr result);
    [LibraryImport(Lib, EntryPoint = "mb_result_interval")] internal static partial int ResultInterval(IntPtr result, nuint index, out Interval row, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_result_timing_count")] internal static partial ulong TimingCount(IntPtr result, Column column);
    [LibraryImport(Lib, EntryPoint = "mb_result_timing_percentile_ns")] internal static partial long TimingPercentileNs(IntPtr result, Column column, double p);
    [LibraryImport(Lib, EntryPoint = "mb_result_timing_min_ns")] internal static partial long TimingMinNs(IntPtr result, Column column);
    [LibraryImport(Lib, EntryPoint = "mb_result_timing_max_ns")] internal static partial long TimingMaxNs(IntPtr result, Column column);
    [LibraryImport(Lib, EntryPoint = "mb_result_timing_mean_ns")] internal static partial double TimingMeanNs(IntPtr result, Column column);
    [LibraryImport(Lib, EntryPoint = "mb_result_timing_stddev_ns")] internal static partial double TimingStddevNs(IntPtr result, Column column);
    [LibraryImport(Lib, EntryPoint = "mb_result_report_ab")] internal static partial nuint ReportAb(IntPtr result, byte[]? buf, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_result_report_latency")]
    internal static partial nuint ReportLatency(IntPtr result, double[]? percentiles, nuint count, byte[]? buf, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_result_hgrm")] internal static partial nuint ResultHgrm(IntPtr result, Column column, byte[]? buf, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_result_hlog")] internal static partial nuint ResultHlog(IntPtr result, byte[]? buf, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_result_json")]
    internal static partial nuint ResultJson(IntPtr result, double[]? percentiles, nuint count, byte[]? buf, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_report_html_json", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int ReportHtmlJson(IntPtr[] documents, IntPtr[] labels, nuint count, string? title, byte[]? buf, nuint size,
                                               out nuint length);

    [LibraryImport(Lib, EntryPoint = "mb_capacity_objective_init")] internal static partial void CapacityObjectiveInit(out CapacityObjectiveNative objective);
    [LibraryImport(Lib, EntryPoint = "mb_find_capacity")]
    internal static partial int FindCapacity(PlanHandle plan, in CapacityObjectiveNative objective, out CapacityHandle capacity);
    [LibraryImport(Lib, EntryPoint = "mb_capacity_destroy")] internal static partial void CapacityDestroy(IntPtr capacity);
    [LibraryImport(Lib, EntryPoint = "mb_capacity_rate")] internal static partial double CapacityRate(CapacityHandle capacity);
    [LibraryImport(Lib, EntryPoint = "mb_capacity_flags")] internal static partial int CapacityFlags(CapacityHandle capacity);
    [LibraryImport(Lib, EntryPoint = "mb_capacity_stopped")] internal static partial int CapacityStopped(CapacityHandle capacity);
    [LibraryImport(Lib, EntryPoint = "mb_capacity_step_count")] internal static partial nuint CapacityStepCount(CapacityHandle capacity);
    [LibraryImport(Lib, EntryPoint = "mb_capacity_step_info")]
    internal static partial int CapacityStepInfo(CapacityHandle capacity, nuint index, out CapacityStepNative step, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_capacity_table")] internal static partial nuint CapacityTable(CapacityHandle capacity, byte[]? buf, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_capacity_json")] internal static partial nuint CapacityJson(CapacityHandle capacity, byte[]? buf, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_capacity_report_html", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial nuint CapacityReportHtml(CapacityHandle capacity, string? title, byte[]? buf, nuint size);

    [LibraryImport(Lib, EntryPoint = "mb_hlog_create")] internal static partial int HlogCreate(out HlogHandle hlog);
    [LibraryImport(Lib, EntryPoint = "mb_hlog_destroy")] internal static partial void HlogDestroy(IntPtr hlog);
    [LibraryImport(Lib, EntryPoint = "mb_hlog_add")] internal static partial int HlogAdd(HlogHandle hlog, byte[] text, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_hlog_set_max_memory")] internal static partial int HlogSetMaxMemory(HlogHandle hlog, ulong bytes);
    [LibraryImport(Lib, EntryPoint = "mb_hlog_message")] internal static partial IntPtr HlogMessage(HlogHandle hlog);
    [LibraryImport(Lib, EntryPoint = "mb_hlog_tag_count")] internal static partial nuint HlogTagCount(HlogHandle hlog);
    [LibraryImport(Lib, EntryPoint = "mb_hlog_tag_info")] internal static partial int HlogTagInfo(HlogHandle hlog, nuint index, out HlogTag tag, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_hlog_percentile")] internal static partial long HlogPercentile(HlogHandle hlog, nuint index, double percentile);
    [LibraryImport(Lib, EntryPoint = "mb_hlog_hgrm")] internal static partial nuint HlogHgrm(HlogHandle hlog, nuint index, double scale, byte[]? buf, nuint size);

    [LibraryImport(Lib, EntryPoint = "mb_suite_run", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int SuiteRun(string url, double scale, int factorialCheck, out SuiteHandle suite);
    [LibraryImport(Lib, EntryPoint = "mb_self_test")] internal static partial int SelfTest(double scale, out SuiteHandle suite, out int passed);
    [LibraryImport(Lib, EntryPoint = "mb_suite_destroy")] internal static partial void SuiteDestroy(IntPtr suite);
    [LibraryImport(Lib, EntryPoint = "mb_suite_count")] internal static partial nuint SuiteCount(SuiteHandle suite);
    [LibraryImport(Lib, EntryPoint = "mb_suite_scenario")] internal static partial IntPtr SuiteScenario(SuiteHandle suite, nuint index);
    [LibraryImport(Lib, EntryPoint = "mb_suite_result")] internal static partial IntPtr SuiteResult(SuiteHandle suite, nuint index);
    [LibraryImport(Lib, EntryPoint = "mb_suite_table")] internal static partial nuint SuiteTable(SuiteHandle suite, byte[]? buf, nuint size);
    [LibraryImport(Lib, EntryPoint = "mb_suite_report_html", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial nuint SuiteReportHtml(SuiteHandle suite, string? title, byte[]? buf, nuint size);

    [LibraryImport(Lib, EntryPoint = "mb_server_port")] internal static partial ushort ServerPort(ServerHandle server);
    [LibraryImport(Lib, EntryPoint = "mb_server_requests")] internal static partial ulong ServerRequests(ServerHandle server);
    [LibraryImport(Lib, EntryPoint = "mb_server_stop")] internal static partial void ServerStop(IntPtr server);
    [LibraryImport(Lib, EntryPoint = "mb_server_limits_init")] internal static partial void ServerLimitsInit(out ServerLimitsNative limits);
    [LibraryImport(Lib, EntryPoint = "mb_server_start_limited", StringMarshalling = StringMarshalling.Utf8)]
    internal static partial int ServerStartLimited(string? host, ushort port, string? unixPath, uint threads, in ServerLimitsNative limits,
                                                   out ServerHandle server);
    [LibraryImport(Lib, EntryPoint = "mb_server_count")] internal static partial ulong ServerCount(ServerHandle server, int which);

    [LibraryImport(Lib, EntryPoint = "mb_cancel_create")] internal static partial int CancelCreate(out CancelHandle cancel);
    [LibraryImport(Lib, EntryPoint = "mb_cancel_trigger")] internal static partial void CancelTrigger(CancelHandle cancel);
    [LibraryImport(Lib, EntryPoint = "mb_cancel_destroy")] internal static partial void CancelDestroy(IntPtr cancel);
}
